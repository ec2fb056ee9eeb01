import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Seals a secret (the SMTP password) with AES-256-GCM under the server's ENCRYPTION_KEY:
 * `v1:<base64 of iv | tag | ciphertext>`. A fresh 12-byte IV per seal; the tag authenticates.
 */
export function sealSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

/** The secret, or an error when it was sealed under another key or altered. */
export function openSecret(sealed: string, key: Buffer): string {
  const [version, payload] = sealed.split(':');
  if (version !== VERSION || !payload) throw new Error('Unknown sealed-secret format.');
  const bytes = Buffer.from(payload, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
