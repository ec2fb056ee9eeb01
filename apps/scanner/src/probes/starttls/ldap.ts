import { readExactly } from './byte-reader';
import { quote } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/** RFC 4511 section 4.14: the StartTLS extended operation. */
export const STARTTLS_OID = '1.3.6.1.4.1.1466.20037';
/** RFC 4511 section 4.4.1: the unsolicited Notice of Disconnection (messageID 0). */
const NOTICE_OF_DISCONNECTION_OID = '1.3.6.1.4.1.1466.20036';
/** A StartTLS response is a few dozen bytes; a diagnostic message or referral may add some. */
export const MAX_LDAP_MESSAGE_BYTES = 64 * 1024;

const TAG = {
  sequence: 0x30,
  integer: 0x02,
  enumerated: 0x0a,
  octetString: 0x04,
  unbindRequest: 0x42, // [APPLICATION 2], primitive NULL
  extendedRequest: 0x77, // [APPLICATION 23], constructed
  extendedResponse: 0x78, // [APPLICATION 24], constructed
  requestName: 0x80, // [0], primitive
  responseName: 0x8a, // [10], primitive
} as const;

/** RFC 4511 appendix A, the codes a refused StartTLS is likely to carry. */
const RESULT_NAMES: Record<number, string> = {
  1: 'operationsError',
  2: 'protocolError',
  3: 'timeLimitExceeded',
  8: 'strongerAuthRequired',
  11: 'adminLimitExceeded',
  12: 'unavailableCriticalExtension',
  13: 'confidentialityRequired',
  50: 'insufficientAccessRights',
  51: 'busy',
  52: 'unavailable',
  53: 'unwillingToPerform',
  80: 'other',
};

/** Definite-length BER: short form below 128, else 0x8N followed by N big-endian bytes. */
function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, value]);
}

/** LDAPMessage { messageID 1, ExtendedRequest { requestName STARTTLS_OID } }: 31 bytes. */
export const STARTTLS_REQUEST = tlv(
  TAG.sequence,
  Buffer.concat([tlv(TAG.integer, Buffer.from([1])), tlv(TAG.extendedRequest, tlv(TAG.requestName, Buffer.from(STARTTLS_OID, 'latin1')))]),
);

/** RFC 4511 4.3: LDAPMessage { messageID 2, UnbindRequest ([APPLICATION 2] NULL) }; the server closes, answering nothing. */
export const UNBIND_REQUEST = tlv(
  TAG.sequence,
  Buffer.concat([tlv(TAG.integer, Buffer.from([2])), tlv(TAG.unbindRequest, Buffer.alloc(0))]),
);

export const ldapGoodbye: Goodbye = () => UNBIND_REQUEST;

interface Element {
  tag: number;
  value: Buffer;
}

/** Reads the elements of a constructed value in order; every length is checked against what is left. */
class BerCursor {
  private offset = 0;

  constructor(private readonly data: Buffer) {}

  get done(): boolean {
    return this.offset >= this.data.length;
  }

  next(): Element {
    const fail = () => new StarttlsError('malformed LDAP response: truncated or invalid BER element');
    if (this.offset + 2 > this.data.length) throw fail();
    const tag = this.data[this.offset];
    if ((tag & 0x1f) === 0x1f) throw fail(); // high tag numbers do not occur in LDAP
    let length = this.data[this.offset + 1];
    let start = this.offset + 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      if (count === 0 || count > 3 || start + count > this.data.length) throw fail();
      length = this.data.readUIntBE(start, count);
      start += count;
    }
    if (start + length > this.data.length) throw fail();
    this.offset = start + length;
    return { tag, value: this.data.subarray(start, start + length) };
  }

  expect(tag: number, what: string): Buffer {
    const element = this.next();
    if (element.tag !== tag) throw new StarttlsError(`malformed LDAP response: ${what} has tag 0x${hex(element.tag)}`);
    return element.value;
  }
}

const hex = (byte: number) => byte.toString(16).padStart(2, '0');

function integer(value: Buffer, what: string): number {
  if (value.length < 1 || value.length > 4) throw new StarttlsError(`malformed LDAP response: ${what} of ${value.length} bytes`);
  return value.readIntBE(0, value.length);
}

/**
 * Reads one LDAPMessage off the socket, header first, so that not a byte past its end is consumed
 * (the TLS handshake follows it). LDAP forbids the indefinite length (RFC 4511 section 5.1).
 */
async function readMessage(socket: Parameters<Upgrader>[0], timeoutMs: number): Promise<Buffer> {
  const what = 'response to the StartTLS request';
  const [tag, first] = await readExactly(socket, 2, what, timeoutMs);
  if (tag !== TAG.sequence) throw new StarttlsError(`not an LDAP response: first byte 0x${hex(tag)}, expected 0x30 (SEQUENCE)`);
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0) throw new StarttlsError('malformed LDAP response: indefinite length');
    if (count > 4) throw new StarttlsError(`LDAP response length of ${count} bytes exceeds ${MAX_LDAP_MESSAGE_BYTES} bytes`);
    length = (await readExactly(socket, count, what, timeoutMs)).readUIntBE(0, count);
  }
  if (length > MAX_LDAP_MESSAGE_BYTES) throw new StarttlsError(`LDAP response of ${length} bytes exceeds ${MAX_LDAP_MESSAGE_BYTES} bytes`);
  if (length === 0) throw new StarttlsError('malformed LDAP response: empty message');
  return readExactly(socket, length, what, timeoutMs);
}

/**
 * RFC 4511 section 4.14: sends the StartTLS extended request and reads the ExtendedResponse; a
 * resultCode of 0 (success) means the next bytes are the TLS handshake.
 */
export const upgradeLdap: Upgrader = async (socket, options) => {
  socket.pause();
  socket.write(STARTTLS_REQUEST);
  const message = new BerCursor(await readMessage(socket, options.readTimeoutMs));
  const messageId = integer(message.expect(TAG.integer, 'messageID'), 'messageID');
  const operation = message.next();
  if (operation.tag !== TAG.extendedResponse) {
    throw new StarttlsError(`unexpected LDAP response: operation tag 0x${hex(operation.tag)}, expected ExtendedResponse (0x78)`);
  }
  const result = new BerCursor(operation.value);
  const resultCode = integer(result.expect(TAG.enumerated, 'resultCode'), 'resultCode');
  result.expect(TAG.octetString, 'matchedDN');
  const diagnostic = quote(result.expect(TAG.octetString, 'diagnosticMessage').toString('utf8'));
  let responseName: string | null = null;
  while (!result.done) {
    const element = result.next();
    if (element.tag === TAG.responseName) responseName = element.value.toString('latin1');
  }
  const described = `LDAP result ${resultCode}${RESULT_NAMES[resultCode] ? ` (${RESULT_NAMES[resultCode]})` : ''}${diagnostic ? ` ${diagnostic}` : ''}`;
  if (messageId === 0 && responseName === NOTICE_OF_DISCONNECTION_OID) {
    throw new StarttlsError(`server disconnected instead of answering StartTLS: ${described}`);
  }
  if (messageId !== 1) throw new StarttlsError(`unexpected LDAP response: messageID ${messageId}, expected 1`);
  if (resultCode !== 0) throw new StarttlsError(`upgrade refused: ${described}`);
};
