import { hashPassword, hashToken, randomToken, tokenHashesEqual, verifyPassword } from './secrets';

describe('passwords', () => {
  it('hash with a fresh salt each time and verify only the right password', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', first)).resolves.toBe(true);
    await expect(verifyPassword('correct horse', second)).resolves.toBe(true);
    await expect(verifyPassword('Correct horse', first)).resolves.toBe(false);
  });

  it('refuse stored values of an unknown scheme', async () => {
    await expect(verifyPassword('x', 'md5$abc')).resolves.toBe(false);
    await expect(verifyPassword('x', '')).resolves.toBe(false);
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
