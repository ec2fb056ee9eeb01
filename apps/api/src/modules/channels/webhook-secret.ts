import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const GENERATED_BYTES = 32;
const MIN_BYTES = 24;
const MAX_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A fresh Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${PREFIX}${randomBytes(GENERATED_BYTES).toString('base64')}`;
}

/**
 * Why a caller's webhook secret is refused, or null when it has the shape (docs/api-contract.md
 * section 17): `whsec_` and the base64 of 24 to 64 bytes, the key receivers verify with.
 */
export function webhookSecretProblem(secret: string): string | null {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : null;
  const bytes = encoded !== null && BASE64.test(encoded) && encoded.length % 4 === 0 ? Buffer.from(encoded, 'base64').length : 0;
  if (bytes >= MIN_BYTES && bytes <= MAX_BYTES) return null;
  return `secret must be ${PREFIX} followed by the base64 of ${MIN_BYTES} to ${MAX_BYTES} bytes`;
}
