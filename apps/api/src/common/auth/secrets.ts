import { createHash, randomBytes, scrypt as scryptCallback, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { Semaphore } from '@certkeeper/domain';

/** URL-safe random text with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Tokens carry at least 256 bits of entropy, so a fast hash is enough: nobody can brute-force
 * the pre-image, and the lookup stays cheap on every request.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function tokenHashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

// Passwords are low-entropy, so they get a salted, memory-hard hash: scrypt at one of OWASP's
// equivalent settings, N=2^15, r=8, p=3 (32 MiB and a few hundred milliseconds per hash; the
// N=2^17, p=1 setting costs the same time but 128 MiB, docs/decisions/0015-scrypt-memory.md),
// stored as `scrypt$N$r$p$salt$hash` so that hashes made with other parameters still verify and
// are replaced at the next successful sign-in (needsRehash).
const SCRYPT = { N: 2 ** 15, r: 8, p: 3, keyLength: 32 };
// The most memory a hash this service ever made needs (N=2^17, r=8: 128 MiB, an earlier
// setting); scrypt needs 128 * N * r bytes and Node refuses anything over maxmem.
const SCRYPT_MAX_MEMORY = 2 * 128 * 2 ** 17 * 8;
/**
 * Hashes run on libuv's thread pool (4 threads), which DNS look-ups, file access and signature
 * checks share. Two at a time bounds their memory (64 MiB at today's cost) and keeps threads free
 * for the rest, however many sign-ins arrive at once; the others wait their turn.
 */
const hashing = new Semaphore(2);

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise((resolve, reject) => {
        scryptCallback(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT_MAX_MEMORY });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface StoredHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseStoredHash(stored: string): StoredHash | null {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !key || !Object.values(cost).every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  // A stored hash asking for more memory or work than any this service made is refused, not computed.
  if (128 * cost.N * cost.r > SCRYPT_MAX_MEMORY / 2 || cost.p > 16) return null;
  return { ...cost, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const hash = parseStoredHash(stored);
  if (!hash || hash.key.length === 0) return false;
  const actual = await scrypt(password, hash.salt, hash.key.length, { N: hash.N, r: hash.r, p: hash.p, maxmem: SCRYPT_MAX_MEMORY });
  return timingSafeEqual(actual, hash.key);
}

/**
 * True for a hash made with other parameters than today's: re-hash it once the password is known.
 * Weaker ones gain strength; the earlier N=2^17 ones keep the same strength at a quarter of the memory.
 */
export function needsRehash(stored: string): boolean {
  const hash = parseStoredHash(stored);
  return hash !== null && (hash.N !== SCRYPT.N || hash.r !== SCRYPT.r || hash.p !== SCRYPT.p || hash.key.length < SCRYPT.keyLength);
}

// Hashed once so that a login for an unknown e-mail costs the same as a wrong password.
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomToken());
  return decoyHash;
}
