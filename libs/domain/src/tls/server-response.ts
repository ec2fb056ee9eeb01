import { createHash } from 'node:crypto';
import type { TlsVersionName } from '../scanner-protocol';
import { ByteReader, TruncatedInput } from './bytes';
import { CONTENT_TYPES, HANDSHAKE_TYPES, readExtensions } from './client-hello';
import { EXTENSION_TYPES } from './extensions';
import { tlsVersionName } from './versions';

/** RFC 8446 section 4.1.3: a HelloRetryRequest is a ServerHello whose random is SHA-256("HelloRetryRequest"). */
export const HELLO_RETRY_REQUEST_RANDOM: Uint8Array = createHash('sha256').update('HelloRetryRequest').digest();

/** AlertDescription names (RFC 8446 section 6 and the SSL 3.0 / TLS 1.0 ones since retired). */
export const ALERT_DESCRIPTIONS: Readonly<Record<number, string>> = {
  0: 'close_notify',
  10: 'unexpected_message',
  20: 'bad_record_mac',
  21: 'decryption_failed',
  22: 'record_overflow',
  30: 'decompression_failure',
  40: 'handshake_failure',
  41: 'no_certificate',
  42: 'bad_certificate',
  43: 'unsupported_certificate',
  44: 'certificate_revoked',
  45: 'certificate_expired',
  46: 'certificate_unknown',
  47: 'illegal_parameter',
  48: 'unknown_ca',
  49: 'access_denied',
  50: 'decode_error',
  51: 'decrypt_error',
  60: 'export_restriction',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  86: 'inappropriate_fallback',
  90: 'user_canceled',
  100: 'no_renegotiation',
  109: 'missing_extension',
  110: 'unsupported_extension',
  112: 'unrecognized_name',
  113: 'bad_certificate_status_response',
  115: 'unknown_psk_identity',
  116: 'certificate_required',
  120: 'no_application_protocol',
};

export interface ServerHello {
  /** What the server chose: supported_versions when present (TLS 1.3), legacy_version otherwise; null for a version we do not name. */
  version: TlsVersionName | null;
  versionCode: number;
  cipherSuite: number;
  compressionMethod: number;
  /** True for a HelloRetryRequest: the server wants a key share for `keyShareGroup` before it goes on. */
  helloRetryRequest: boolean;
  /** From key_share: the group of the server's share, or for a HelloRetryRequest the group it asks for. */
  keyShareGroup: number | null;
  extensionTypes: number[];
}

export type ServerResponse =
  /** Not enough bytes yet: read more and parse the whole buffer again. */
  | { kind: 'incomplete' }
  | { kind: 'server-hello'; hello: ServerHello }
  | { kind: 'alert'; level: number; description: number; name: string }
  /** An SSL 2.0 SERVER-HELLO: the server speaks only SSL 2.0 (or answers SSLv2 to everything). */
  | { kind: 'sslv2' }
  /** Bytes that are not a TLS answer to a ClientHello: another protocol, or a broken server. */
  | { kind: 'malformed'; reason: string };

// The largest record TLSCiphertext allows (RFC 8446 section 5.2); anything longer is not TLS.
const MAX_RECORD_LENGTH = 16384 + 2048;
// A ServerHello carries at most a few hundred bytes of extensions; a "ServerHello" announcing more is garbage.
const MAX_SERVER_HELLO_LENGTH = 64 * 1024;

/**
 * Reads the start of what a server sent back after our ClientHello: the first handshake message
 * (which must be a ServerHello, possibly spread over several records) or an alert. Pure and
 * restartable: the caller appends each TCP read to one buffer and calls again until the answer is
 * not 'incomplete'. Never throws.
 */
export function parseServerResponse(bytes: Uint8Array): ServerResponse {
  if (bytes.length > 0 && looksLikeSslv2(bytes)) return bytes.length < 3 ? { kind: 'incomplete' } : sslv2Answer(bytes);
  let offset = 0;
  const handshake: Uint8Array[] = [];
  while (bytes.length - offset >= 5) {
    const type = bytes[offset];
    const length = (bytes[offset + 3] << 8) | bytes[offset + 4];
    const headerProblem = checkRecordHeader(type, bytes[offset + 1], length);
    if (headerProblem !== null) return { kind: 'malformed', reason: headerProblem };
    if (bytes.length - offset - 5 < length) return { kind: 'incomplete' };
    const payload = bytes.subarray(offset + 5, offset + 5 + length);
    offset += 5 + length;
    if (type === CONTENT_TYPES.alert) return alertAnswer(payload);
    if (type === CONTENT_TYPES.changeCipherSpec) continue; // TLS 1.3 middlebox compatibility; carries nothing for us
    if (type !== CONTENT_TYPES.handshake) return { kind: 'malformed', reason: `content type ${type} before a ServerHello` };
    handshake.push(payload);
    const answer = firstHandshakeMessage(Buffer.concat(handshake));
    if (answer.kind !== 'incomplete') return answer;
  }
  return { kind: 'incomplete' };
}

export function alertDescriptionName(description: number): string {
  return ALERT_DESCRIPTIONS[description] ?? `alert_${description}`;
}

function checkRecordHeader(type: number, majorVersion: number, length: number): string | null {
  const known: number[] = [CONTENT_TYPES.changeCipherSpec, CONTENT_TYPES.alert, CONTENT_TYPES.handshake, CONTENT_TYPES.applicationData];
  if (!known.includes(type)) return `not a TLS record (first byte 0x${type.toString(16).padStart(2, '0')})`;
  if (majorVersion !== 3) return `record version ${majorVersion}.x is not SSL 3.0 or TLS`;
  if (length > MAX_RECORD_LENGTH) return `record of ${length} bytes exceeds the TLS maximum`;
  return null;
}

/** SSL 2.0 records start with a 2-byte length whose top bit is set; byte 2 is the message type (4 = SERVER-HELLO). */
function looksLikeSslv2(bytes: Uint8Array): boolean {
  return (bytes[0] & 0x80) !== 0;
}

function sslv2Answer(bytes: Uint8Array): ServerResponse {
  return bytes[2] === 4 ? { kind: 'sslv2' } : { kind: 'malformed', reason: 'not a TLS record (SSL 2.0 framing)' };
}

function alertAnswer(payload: Uint8Array): ServerResponse {
  if (payload.length < 2) return { kind: 'malformed', reason: 'alert record shorter than 2 bytes' };
  const [level, description] = payload;
  return { kind: 'alert', level, description, name: alertDescriptionName(description) };
}

function firstHandshakeMessage(stream: Uint8Array): ServerResponse {
  if (stream.length < 4) return { kind: 'incomplete' };
  const type = stream[0];
  const length = (stream[1] << 16) | (stream[2] << 8) | stream[3];
  if (type !== HANDSHAKE_TYPES.serverHello) return { kind: 'malformed', reason: `handshake message ${type} instead of a ServerHello` };
  if (length > MAX_SERVER_HELLO_LENGTH) return { kind: 'malformed', reason: `ServerHello of ${length} bytes` };
  if (stream.length < 4 + length) return { kind: 'incomplete' };
  return readServerHello(stream.subarray(4, 4 + length));
}

function readServerHello(body: Uint8Array): ServerResponse {
  try {
    const reader = new ByteReader(body);
    const legacyVersion = reader.uint16();
    const random = reader.take(32);
    reader.vector(1); // session id
    const cipherSuite = reader.uint16();
    const compressionMethod = reader.uint8();
    const extensions = reader.remaining > 0 ? readExtensions(new ByteReader(reader.vector(2))) : [];
    const helloRetryRequest = Buffer.from(random).equals(HELLO_RETRY_REQUEST_RANDOM);
    const selected = extensions.find((ext) => ext.type === EXTENSION_TYPES.supportedVersions)?.data;
    const versionCode = selected === undefined ? legacyVersion : new ByteReader(selected).uint16();
    const share = extensions.find((ext) => ext.type === EXTENSION_TYPES.keyShare)?.data;
    const hello: ServerHello = {
      version: tlsVersionName(versionCode),
      versionCode,
      cipherSuite,
      compressionMethod,
      helloRetryRequest,
      // Both a ServerHello's KeyShareEntry and a HelloRetryRequest's selected_group start with the group.
      keyShareGroup: share === undefined ? null : new ByteReader(share).uint16(),
      extensionTypes: extensions.map((ext) => ext.type),
    };
    return { kind: 'server-hello', hello };
  } catch (error) {
    if (error instanceof TruncatedInput) return { kind: 'malformed', reason: 'ServerHello shorter than its fields' };
    throw error;
  }
}
