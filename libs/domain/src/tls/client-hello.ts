import { randomBytes } from 'node:crypto';
import type { TlsVersionName } from '../scanner-protocol';
import { parseIpAddress } from '../x509/ip-address';
import { ByteReader, uint16, uint16List, uint24, uint8, vector } from './bytes';
import { TLS_EMPTY_RENEGOTIATION_INFO_SCSV } from './cipher-suites';
import { EXTENSION_TYPES, SIGNATURE_SCHEMES } from './extensions';
import { type KeyShareEntry, NAMED_GROUPS, generateKeyShare } from './key-share';
import { TLS_VERSION_CODES } from './versions';

export const CONTENT_TYPES = { changeCipherSpec: 20, alert: 21, handshake: 22, applicationData: 23 } as const;
export const HANDSHAKE_TYPES = { clientHello: 1, serverHello: 2 } as const;

const G = NAMED_GROUPS;
/**
 * Groups offered up to TLS 1.2. No finite-field groups on purpose: a server that implements
 * RFC 7919 must then refuse every DHE suite unless it shares one of them, which would hide DHE
 * suites it gladly negotiates with its own parameters.
 */
export const PRE_TLS13_GROUPS: readonly number[] = [
  G.x25519,
  G.secp256r1,
  G.x448,
  G.secp384r1,
  G.secp521r1,
  G.brainpoolP256r1,
  G.brainpoolP384r1,
  G.brainpoolP512r1,
  G.secp256k1,
  G.secp224r1,
  G.secp192r1,
];
export const TLS13_GROUPS: readonly number[] = [
  G.x25519,
  G.secp256r1,
  G.x448,
  G.secp384r1,
  G.secp521r1,
  G.ffdhe2048,
  G.ffdhe3072,
  G.ffdhe4096,
];

export interface ClientHelloOptions {
  version: TlsVersionName;
  /** Offered in this order; TLS_EMPTY_RENEGOTIATION_INFO_SCSV is added for SSLv3, which has no extensions. */
  cipherSuites: readonly number[];
  /** Sent as SNI unless empty or an IP literal (RFC 6066 section 3 allows host names only). */
  serverName: string;
  /** TLS 1.3 only. Default: a fresh X25519 share. */
  keyShare?: KeyShareEntry;
}

// Handshake messages from 256 to 511 bytes hang some F5 load balancers; BoringSSL and OpenSSL
// pad them to 512 with the padding extension (RFC 7685), and so do we.
const PADDING_FROM = 256;
const PADDING_TO = 512;

/** A complete TLS record (record header + handshake header + ClientHello), ready to write to a socket. */
export function buildClientHello(options: ClientHelloOptions): Buffer {
  const isSsl3 = options.version === 'SSLv3';
  const suites = isSsl3 ? [...options.cipherSuites, TLS_EMPTY_RENEGOTIATION_INFO_SCSV] : options.cipherSuites;
  const head = Buffer.concat([
    uint16(Math.min(TLS_VERSION_CODES[options.version], TLS_VERSION_CODES['TLSv1.2'])), // legacy_version
    randomBytes(32),
    vector(1, randomBytes(32)), // legacy_session_id: 32 bytes, as TLS 1.3 middlebox compatibility mode sends
    uint16List(2, suites),
    vector(1, uint8(0)), // compression: null only
  ]);
  // SSL 3.0 predates extensions and some of its servers abort on them; the SCSV above carries RFC 5746.
  const body = isSsl3 ? head : Buffer.concat([head, vector(2, ...padded(head.length, extensionsFor(options)))]);
  const handshake = Buffer.concat([uint8(HANDSHAKE_TYPES.clientHello), uint24(body.length), body]);
  // The record layer says TLS 1.0 for every TLS version: RFC 8446 section 5.1, and old servers
  // drop records whose version they do not know before reading the hello's own version.
  const recordVersion = isSsl3 ? TLS_VERSION_CODES.SSLv3 : TLS_VERSION_CODES['TLSv1.0'];
  return Buffer.concat([uint8(CONTENT_TYPES.handshake), uint16(recordVersion), vector(2, handshake)]);
}

/** The host name as SNI carries it, or null when it must not be sent. */
export function sniHostName(serverName: string): string | null {
  const name = serverName.endsWith('.') ? serverName.slice(0, -1) : serverName;
  if (name === '' || name.length > 255 || parseIpAddress(name) !== null) return null;
  // SNI is ASCII (an A-label for an internationalised name); anything else would be misread.
  return /^[\x21-\x7e]+$/.test(name) ? name : null;
}

function extensionsFor(options: ClientHelloOptions): Buffer[] {
  const list: Buffer[] = [];
  const host = sniHostName(options.serverName);
  if (host !== null) list.push(extension(EXTENSION_TYPES.serverName, vector(2, uint8(0), vector(2, Buffer.from(host, 'ascii')))));
  if (options.version === 'TLSv1.3') list.push(...tls13Extensions(options.keyShare));
  else list.push(...legacyExtensions(options.version));
  return list;
}

function legacyExtensions(version: TlsVersionName): Buffer[] {
  const list = [
    extension(EXTENSION_TYPES.supportedGroups, uint16List(2, PRE_TLS13_GROUPS)),
    extension(EXTENSION_TYPES.ecPointFormats, vector(1, uint8(0))), // uncompressed
  ];
  // RFC 5246 section 7.4.1.4.1: signature_algorithms exists from TLS 1.2 on; earlier hellos leave it out.
  if (version === 'TLSv1.2') list.push(extension(EXTENSION_TYPES.signatureAlgorithms, uint16List(2, SIGNATURE_SCHEMES)));
  list.push(extension(EXTENSION_TYPES.extendedMasterSecret, Buffer.alloc(0)));
  list.push(extension(EXTENSION_TYPES.renegotiationInfo, vector(1)));
  return list;
}

function tls13Extensions(keyShare: KeyShareEntry | undefined): Buffer[] {
  const share = keyShare ?? generateKeyShare(NAMED_GROUPS.x25519)!;
  return [
    extension(EXTENSION_TYPES.supportedGroups, uint16List(2, TLS13_GROUPS)),
    extension(EXTENSION_TYPES.signatureAlgorithms, uint16List(2, SIGNATURE_SCHEMES)),
    extension(EXTENSION_TYPES.supportedVersions, uint16List(1, [TLS_VERSION_CODES['TLSv1.3']])),
    extension(EXTENSION_TYPES.keyShare, vector(2, uint16(share.group), vector(2, share.publicKey))),
    extension(EXTENSION_TYPES.pskKeyExchangeModes, vector(1, uint8(1))), // psk_dhe_ke
  ];
}

function extension(type: number, data: Uint8Array): Buffer {
  return Buffer.concat([uint16(type), vector(2, data)]);
}

/** Appends a padding extension when the finished handshake message would land in the 256-511 byte range. */
function padded(headLength: number, extensions: Buffer[]): Buffer[] {
  const handshakeLength = 4 + headLength + 2 + extensions.reduce((sum, ext) => sum + ext.length, 0);
  if (handshakeLength < PADDING_FROM || handshakeLength >= PADDING_TO) return extensions;
  const fill = Math.max(PADDING_TO - handshakeLength - 4, 0);
  return [...extensions, extension(EXTENSION_TYPES.padding, Buffer.alloc(fill))];
}

export function readExtensions(reader: ByteReader): { type: number; data: Uint8Array }[] {
  const extensions: { type: number; data: Uint8Array }[] = [];
  while (reader.remaining > 0) extensions.push({ type: reader.uint16(), data: reader.vector(2) });
  return extensions;
}
