import { randomBytes } from 'node:crypto';
import { type FlowState, isRelativeRedirect, openFlow, sealFlow } from './oidc-flow-state';
import { sealSecret } from '../../common/crypto/secret-box';

const flow: FlowState = {
  state: 's',
  nonce: 'n',
  codeVerifier: 'v',
  redirect: '/endpoints',
  redirectUri: 'https://ck.example.com/api/v1/auth/oidc/callback',
  returnBase: 'https://ck.example.com',
  issuerUrl: 'https://idp.example.com',
  clientId: 'certkeeper',
  expiresAt: 1,
};

describe('OIDC flow state', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and nothing else', () => {
    expect(openFlow(sealFlow(flow, key), key)).toEqual(flow);
    expect(openFlow(sealFlow(flow, key), randomBytes(32))).toBeNull();
    expect(openFlow('garbage', key)).toBeNull();
    const sealed = sealFlow(flow, key);
    expect(openFlow(sealed.slice(0, -4) + 'AAAA', key)).toBeNull();
    // Another sealed secret (the SMTP password) is no flow.
    expect(openFlow(Buffer.from(sealSecret(JSON.stringify(flow), key)).toString('base64url'), key)).toBeNull();
  });

  it('accepts only paths on this site as redirects', () => {
    expect(isRelativeRedirect('/endpoints?x=1')).toBe(true);
    expect(isRelativeRedirect('/')).toBe(true);
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'endpoints', '/a\nb', '\\\\evil']) {
      expect(isRelativeRedirect(bad)).toBe(false);
    }
  });
});
