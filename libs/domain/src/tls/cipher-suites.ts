import type { TlsVersionName } from '../scanner-protocol';
import { CIPHER_SUITE_TABLE } from './cipher-suite-table';

/** RFC 5746: asks for secure renegotiation; a code point in the suite list, never a suite. */
export const TLS_EMPTY_RENEGOTIATION_INFO_SCSV = 0x00ff;
/** RFC 7507: "this is a fallback". Never sent by the profiler: servers would abort every lower-version probe. */
export const TLS_FALLBACK_SCSV = 0x5600;

const NAMES = new Map<number, string>(CIPHER_SUITE_TABLE);
const IDS = new Map<string, number>(CIPHER_SUITE_TABLE.map(([id, name]) => [name, id]));

/** The suites RFC 8446 defines; the only ones a TLS 1.3 ServerHello may carry in practice. */
export const TLS13_CIPHER_SUITES: readonly number[] = [0x1301, 0x1302, 0x1303, 0x1304, 0x1305];

/** TLS 1.3 suites from later RFCs (SM4, integrity-only) and code points that are not suites at all. */
const NEVER_OFFERED = new Set([0x0000, 0x00c6, 0x00c7, 0xc0b4, 0xc0b5, TLS_EMPTY_RENEGOTIATION_INFO_SCSV, TLS_FALLBACK_SCSV]);

/** Offer order, strongest cipher first (see offerRank); the first pattern that matches a name wins. */
const CIPHER_TIERS: ReadonlyArray<readonly [RegExp, number]> = [
  [/_WITH_NULL_|_NULL_SHA/, 9],
  [/EXPORT/, 8],
  [/_RC2_|_DES_CBC_|_DES40_/, 7],
  [/_RC4_/, 6],
  [/_3DES_/, 5],
  [/_SEED_|_IDEA_/, 4],
  [/_AES_\d+_CBC_SHA$/, 3],
  [/_CBC_SHA$/, 3.5],
  [/_AES_\d+_CBC_SHA(256|384)$/, 2],
  [/_CBC_SHA(256|384)$/, 2.5],
  [/_CCM/, 1],
  [/_AES_\d+_GCM_|CHACHA20/, 0],
  [/_GCM_/, 0.5],
];

/** The IANA name, or `0xC0FF` style hex for a code point the registry does not know. */
export function cipherSuiteName(id: number): string {
  return NAMES.get(id) ?? `0x${id.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The code point of an IANA name (or of the hex form cipherSuiteName prints), null when unknown. */
export function cipherSuiteId(name: string): number | null {
  const known = IDS.get(name);
  if (known !== undefined) return known;
  return /^0x[0-9A-Fa-f]{4}$/.test(name) ? Number.parseInt(name.slice(2), 16) : null;
}

export function isSignalingCipherSuite(id: number): boolean {
  return id === TLS_EMPTY_RENEGOTIATION_INFO_SCSV || id === TLS_FALLBACK_SCSV;
}

/** AEAD and SHA-256/384 suites came with TLS 1.2 (RFC 5246, 5288, 5289); older versions cannot negotiate them. */
export function requiresTls12(id: number): boolean {
  const name = cipherSuiteName(id);
  return /_GCM_|_CCM|CHACHA20|_SHA256$|_SHA384$/.test(name);
}

/**
 * Every known suite a server could pick for a version before 1.3, strongest first: a server that
 * follows the client's order (OpenSSL's default) then reports the suite a modern client would get.
 */
export const PRE_TLS13_CIPHER_SUITES: readonly number[] = CIPHER_SUITE_TABLE.map(([id]) => id)
  .filter((id) => !NEVER_OFFERED.has(id) && !TLS13_CIPHER_SUITES.includes(id))
  .sort((a, b) => offerRank(a) - offerRank(b) || a - b);

/** The whole bundle offered for a version; it never contains a signaling value. */
export function cipherSuitesToOffer(version: TlsVersionName): number[] {
  if (version === 'TLSv1.3') return [...TLS13_CIPHER_SUITES];
  if (version === 'TLSv1.2') return [...PRE_TLS13_CIPHER_SUITES];
  return PRE_TLS13_CIPHER_SUITES.filter((id) => !requiresTls12(id));
}

/**
 * The suites mainstream servers are configured with: the fallback for a server that chokes on the
 * whole bundle (too many suites, an unusual one, a record it will not read).
 */
const COMMON_PRE_TLS13 = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_DHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_DHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_DHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_DHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_256_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_RC4_128_MD5',
].map((name) => IDS.get(name)!);

/** A small bundle for the one retry after a server refused the whole one in a way that suggests intolerance. */
export function compactCipherSuitesToOffer(version: TlsVersionName): number[] {
  if (version === 'TLSv1.3') return [...TLS13_CIPHER_SUITES];
  return version === 'TLSv1.2' ? [...COMMON_PRE_TLS13] : COMMON_PRE_TLS13.filter((id) => !requiresTls12(id));
}

/** Lower is offered earlier: the cipher's strength first, then the key exchange. */
function offerRank(id: number): number {
  const name = cipherSuiteName(id);
  return cipherTier(name) * 10 + keyExchangeTier(name);
}

function cipherTier(name: string): number {
  return CIPHER_TIERS.find(([pattern]) => pattern.test(name))?.[1] ?? 9;
}

function keyExchangeTier(name: string): number {
  const keyExchange = name.slice('TLS_'.length, name.indexOf('_WITH_'));
  if (keyExchange.includes('anon')) return 5;
  if (/PSK|SRP|KRB5|ECCPWD/.test(keyExchange)) return 4;
  if (keyExchange.startsWith('ECDHE_')) return 0;
  if (keyExchange.startsWith('DHE_')) return 1;
  if (keyExchange === 'RSA') return 2;
  return 3;
}
