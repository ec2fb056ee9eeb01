import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, webhookSecretProblem } from './webhook-secret';

describe('webhook secrets', () => {
  it('are generated in the shape the reference library reads, fresh each time', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretProblem(secret)).toBeNull();
    expect(() => new Webhook(secret)).not.toThrow();
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it.each([
    ['no prefix', Buffer.alloc(32, 1).toString('base64')],
    ['too short', `whsec_${Buffer.alloc(23, 1).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
    ['not base64', 'whsec_not*base64*at*all*but*long*enough*to*pass*a*length*check'],
  ])('refuses a secret with %s', (_why, secret) => {
    expect(webhookSecretProblem(secret)).toBe('secret must be whsec_ followed by the base64 of 24 to 64 bytes');
  });

  it('accepts 24 and 64 bytes', () => {
    expect(webhookSecretProblem(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBeNull();
    expect(webhookSecretProblem(`whsec_${Buffer.alloc(64, 7).toString('base64')}`)).toBeNull();
  });
});
