import { parseFingerprint } from './fingerprint';

const SHA256 = 'a1'.repeat(32);
const SHA1 = '0f'.repeat(20);

describe('parseFingerprint', () => {
  it('accepts SHA-256 in lower case, upper case and colon-separated form', () => {
    const colons = SHA256.toUpperCase().match(/../g)!.join(':');
    for (const input of [SHA256, SHA256.toUpperCase(), colons, ` ${colons} `]) {
      expect(parseFingerprint(input)).toEqual({ algorithm: 'sha256', hex: SHA256 });
    }
  });

  it('accepts SHA-1', () => {
    expect(parseFingerprint(SHA1.toUpperCase())).toEqual({ algorithm: 'sha1', hex: SHA1 });
  });

  it.each(['', 'xyz', SHA256.slice(1), `${SHA256}00`, `${SHA256.slice(2)}zz`])('refuses %j', (input) => {
    expect(parseFingerprint(input)).toBeNull();
  });
});
