import { createECDH, generateKeyPairSync } from 'node:crypto';

/** NamedGroup code points (RFC 8446 section 4.2.7, RFC 7919, RFC 8422, RFC 7027). */
export const NAMED_GROUPS = {
  secp192r1: 0x0013,
  secp224r1: 0x0015,
  secp256k1: 0x0016,
  secp256r1: 0x0017,
  secp384r1: 0x0018,
  secp521r1: 0x0019,
  brainpoolP256r1: 0x001a,
  brainpoolP384r1: 0x001b,
  brainpoolP512r1: 0x001c,
  x25519: 0x001d,
  x448: 0x001e,
  ffdhe2048: 0x0100,
  ffdhe3072: 0x0101,
  ffdhe4096: 0x0102,
  ffdhe6144: 0x0103,
  ffdhe8192: 0x0104,
} as const;

/** A KeyShareEntry: the group and the public value exactly as it goes on the wire. */
export interface KeyShareEntry {
  group: number;
  publicKey: Uint8Array;
}

const MONTGOMERY = new Map<number, 'x25519' | 'x448'>([
  [NAMED_GROUPS.x25519, 'x25519'],
  [NAMED_GROUPS.x448, 'x448'],
]);

// OpenSSL's names for the NIST curves; createECDH returns the uncompressed point TLS 1.3 requires.
const WEIERSTRASS = new Map<number, string>([
  [NAMED_GROUPS.secp256r1, 'prime256v1'],
  [NAMED_GROUPS.secp384r1, 'secp384r1'],
  [NAMED_GROUPS.secp521r1, 'secp521r1'],
]);

/** The groups generateKeyShare can produce a real public value for. */
export function canGenerateKeyShare(group: number): boolean {
  return MONTGOMERY.has(group) || WEIERSTRASS.has(group);
}

/**
 * A fresh, real public value for `group`, or null for a group we do not generate (finite-field
 * groups, brainpool). Servers validate shares (a point off the curve is an illegal_parameter
 * alert), so a probe cannot send random bytes. The private half is discarded: no handshake completes.
 */
export function generateKeyShare(group: number): KeyShareEntry | null {
  const montgomery = MONTGOMERY.get(group);
  if (montgomery !== undefined) {
    const { publicKey } = montgomery === 'x25519' ? generateKeyPairSync('x25519') : generateKeyPairSync('x448');
    const jwk = publicKey.export({ format: 'jwk' });
    return { group, publicKey: Buffer.from(jwk.x ?? '', 'base64url') };
  }
  const curve = WEIERSTRASS.get(group);
  if (curve === undefined) return null;
  const ecdh = createECDH(curve);
  return { group, publicKey: ecdh.generateKeys() };
}
