import { randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from './secret-box';

describe('secret box', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time, and never shows the plaintext', () => {
    const a = sealSecret('smtp-pässword', key);
    const b = sealSecret('smtp-pässword', key);
    expect(a).not.toBe(b);
    expect(a).not.toContain('smtp');
    expect(openSecret(a, key)).toBe('smtp-pässword');
  });

  it('refuses another key and any alteration', () => {
    const sealed = sealSecret('secret', key);
    expect(() => openSecret(sealed, randomBytes(32))).toThrow();
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1] ^= 1;
    expect(() => openSecret(`v1:${bytes.toString('base64')}`, key)).toThrow();
    expect(() => openSecret('plain', key)).toThrow('Unknown sealed-secret format.');
  });
});
