// Hand-written on purpose, where CSV, HTML-to-text and cron use libraries (decision 0006). It is on the hot paths: every certificate the API stores is read by
// it, and the trust evaluator's signature fast path (trust/signature.ts) takes the signed bytes
// and the keys from it instead of building an X509Certificate or an ASN.1 library's object tree.
// ASN.1 libraries decode everything and re-encode what they parse; this reads only what is asked
// for, in place, as the exact bytes that are hashed and compared.

/**
 * A minimal DER reader: just enough to walk a certificate and its extensions.
 *
 * @peculiar/x509 validates the certificate as a whole, but it re-encodes what it parses and builds
 * every extension in one go (one malformed extension makes all of them unreadable). Reading the
 * original bytes ourselves gives the exact encodings we hash and compare (names, serial number) and
 * lets each extension fail on its own. Only definite lengths and single-byte tags are accepted,
 * which is all DER-encoded X.509 uses.
 */

export const DerTag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  objectIdentifier: 0x06,
  sequence: 0x30,
} as const;

/** Context-specific tags: `[n] IMPLICIT` on a primitive type, or `[n]` around constructed content. */
export const contextTag = (n: number): number => 0x80 | n;
export const constructedContextTag = (n: number): number => 0xa0 | n;

const CONSTRUCTED_BIT = 0x20;
const HIGH_TAG_NUMBER_FORM = 0x1f;
const INDEFINITE_LENGTH = 0x80;
// Four length octets address 4 GiB, far beyond any certificate; more is certainly garbage.
const MAX_LENGTH_OCTETS = 4;

/** Thrown by the reader; callers turn it into a parse error, it never leaves the module's public functions. */
export class DerError extends Error {
  override readonly name: string = 'DerError';
}

/** The input ends inside an element: usually a certificate cut short by copy and paste. */
export class TruncatedDerError extends DerError {
  override readonly name = 'TruncatedDerError';
  constructor() {
    super('The DER encoding is truncated.');
  }
}

export interface DerElement {
  tag: number;
  /** The complete encoding: tag, length and content octets. */
  encoded: Uint8Array;
  content: Uint8Array;
}

/** Reads the element that starts at `offset`. */
export function readDerElement(bytes: Uint8Array, offset = 0): DerElement {
  const tag = readTag(bytes, offset);
  const { length, lengthOctets } = readLength(bytes, offset + 1);
  const contentStart = offset + 1 + lengthOctets;
  const end = contentStart + length;
  if (end > bytes.length) throw new TruncatedDerError();
  return { tag, encoded: bytes.subarray(offset, end), content: bytes.subarray(contentStart, end) };
}

/** Reads the elements inside a constructed element (a SEQUENCE, a SET or a constructed `[n]`). */
export function readChildren(element: DerElement): DerElement[] {
  if ((element.tag & CONSTRUCTED_BIT) === 0) throw new DerError('Expected a constructed DER element.');
  const children: DerElement[] = [];
  for (let offset = 0; offset < element.content.length;) {
    const child = readDerElement(element.content, offset);
    children.push(child);
    offset += child.encoded.length;
  }
  return children;
}

/** Parses `bytes` as exactly one element: anything after it is an error. */
export function readSingleDerElement(bytes: Uint8Array): DerElement {
  const element = readDerElement(bytes);
  if (element.encoded.length !== bytes.length) throw new DerError('Unexpected bytes follow the DER element.');
  return element;
}

export function expectTag(element: DerElement | undefined, tag: number, what: string): DerElement {
  if (element?.tag !== tag) throw new DerError(`Expected ${what}.`);
  return element;
}

export function decodeObjectIdentifier(element: DerElement): string {
  const content = expectTag(element, DerTag.objectIdentifier, 'an object identifier').content;
  const values = decodeBase128Values(content);
  if (values.length === 0) throw new DerError('Empty object identifier.');
  return [...splitFirstValue(values[0]), ...values.slice(1)].map(String).join('.');
}

// Arcs are arbitrary-precision (UUID-based OIDs under 2.25 exceed 2^53), hence bigint.
function decodeBase128Values(content: Uint8Array): bigint[] {
  const values: bigint[] = [];
  let current = 0n;
  let inValue = false;
  for (const byte of content) {
    current = (current << 7n) | BigInt(byte & 0x7f);
    inValue = (byte & 0x80) !== 0;
    if (!inValue) {
      values.push(current);
      current = 0n;
    }
  }
  if (inValue) throw new DerError('An object identifier ends inside an arc.');
  return values;
}

// X.690 packs the first two arcs into one value: 40 * first + second, with first at most 2.
function splitFirstValue(value: bigint): bigint[] {
  if (value < 40n) return [0n, value];
  if (value < 80n) return [1n, value - 40n];
  return [2n, value - 80n];
}

export function decodeBoolean(element: DerElement): boolean {
  const content = expectTag(element, DerTag.boolean, 'a BOOLEAN').content;
  if (content.length !== 1) throw new DerError('A BOOLEAN has exactly one content octet.');
  return content[0] !== 0;
}

/** A non-negative INTEGER small enough for a JavaScript number, or null when it is negative or huge. */
export function decodeSmallNonNegativeInteger(element: DerElement): number | null {
  const content = expectTag(element, DerTag.integer, 'an INTEGER').content;
  if (content.length === 0) throw new DerError('An INTEGER has at least one content octet.');
  if ((content[0] & 0x80) !== 0 || content.length > 6) return null;
  return content.reduce((value, byte) => value * 256 + byte, 0);
}

/**
 * The value octets of a BIT STRING. The first content octet counts the unused bits of the last
 * octet; every BIT STRING X.509 reads here is byte-aligned or read bit by bit, so it is skipped.
 */
export function bitStringBytes(element: DerElement): Uint8Array {
  const content = expectTag(element, DerTag.bitString, 'a BIT STRING').content;
  if (content.length === 0) throw new DerError('A BIT STRING has at least one content octet.');
  return content.subarray(1);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// X.509 strings (IA5String for host names and URIs) are ASCII by definition; decoding them as
// UTF-8 also keeps the non-conforming certificates that carry UTF-8 readable instead of failing.
const textDecoder = new TextDecoder('utf-8');
export function decodeText(element: DerElement): string {
  return textDecoder.decode(element.content);
}

function readTag(bytes: Uint8Array, offset: number): number {
  if (offset >= bytes.length) throw new TruncatedDerError();
  const tag = bytes[offset];
  if ((tag & HIGH_TAG_NUMBER_FORM) === HIGH_TAG_NUMBER_FORM) throw new DerError('Multi-byte DER tags are not used by X.509.');
  return tag;
}

function readLength(bytes: Uint8Array, offset: number): { length: number; lengthOctets: number } {
  if (offset >= bytes.length) throw new TruncatedDerError();
  const first = bytes[offset];
  if (first < INDEFINITE_LENGTH) return { length: first, lengthOctets: 1 };
  if (first === INDEFINITE_LENGTH) throw new DerError('Indefinite lengths are not allowed in DER.');
  const count = first & 0x7f;
  if (count > MAX_LENGTH_OCTETS) throw new DerError('The DER length is too large.');
  if (offset + count >= bytes.length) throw new TruncatedDerError();
  let length = 0;
  for (let i = 1; i <= count; i++) length = length * 256 + bytes[offset + i];
  return { length, lengthOctets: 1 + count };
}
