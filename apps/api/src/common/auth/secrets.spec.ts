import { scryptSync } from 'node:crypto';
import { hashPassword, hashToken, needsRehash, randomToken, tokenHashesEqual, verifyPassword } from './secrets';

/** A hash as the service made them at an earlier cost: N=2^14 (the first setting) or N=2^17 with p=1 (the second). */
function legacyHash(password: string, N = 16384): string {
  const salt = Buffer.from('0123456789abcdef');
  const key = scryptSync(password, salt, 32, { N, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
  return ['scrypt', N, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}

describe('passwords', () => {
  it('hash with a fresh salt each time and verify only the right password', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', first)).resolves.toBe(true);
    await expect(verifyPassword('correct horse', second)).resolves.toBe(true);
    await expect(verifyPassword('Correct horse', first)).resolves.toBe(false);
  });

  it('refuse stored values of an unknown scheme, and costs no hash of ours would ask for', async () => {
    await expect(verifyPassword('x', 'md5$abc')).resolves.toBe(false);
    await expect(verifyPassword('x', '')).resolves.toBe(false);
    await expect(verifyPassword('x', 'scrypt$1048576$8$1$c2FsdA==$a2V5')).resolves.toBe(false);
    await expect(verifyPassword('x', 'scrypt$abc$8$1$c2FsdA==$a2V5')).resolves.toBe(false);
  });

  it('still verify hashes made at the old cost, and mark them for re-hashing', async () => {
    const legacy = legacyHash('correct horse');
    await expect(verifyPassword('correct horse', legacy)).resolves.toBe(true);
    await expect(verifyPassword('wrong horse', legacy)).resolves.toBe(false);
    expect(needsRehash(legacy)).toBe(true);
    expect(needsRehash(await hashPassword('correct horse'))).toBe(false);
    expect(needsRehash('md5$abc')).toBe(false);
  });

  it('still verify the earlier N=2^17 hashes (128 MiB), and mark them for re-hashing at a quarter of the memory', async () => {
    const earlier = legacyHash('correct horse', 2 ** 17);
    await expect(verifyPassword('correct horse', earlier)).resolves.toBe(true);
    await expect(verifyPassword('wrong horse', earlier)).resolves.toBe(false);
    expect(needsRehash(earlier)).toBe(true);
  });
});

describe('tokens', () => {
  it('are random, URL-safe and compared by hash', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(token);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenHashesEqual(hashToken(token), hashToken(token))).toBe(true);
    expect(tokenHashesEqual(hashToken(token), hashToken(`${token}x`))).toBe(false);
    expect(tokenHashesEqual(hashToken(token), 'abcd')).toBe(false);
  });
});
