import { openSecret, sealSecret } from '../../common/crypto/secret-box';

/**
 * What a sign-in remembers between the redirect to the provider and its callback. It travels in
 * the browser's flow cookie, sealed (AES-256-GCM, encrypted and authenticated) with the
 * ENCRYPTION_KEY, so any replica holding that key can finish a flow another one began, and
 * nothing in it can be read or altered on the way (docs/decisions/0008-openid-connect.md).
 */
export interface FlowState {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The relative path the web interface returns to afterwards, or null. */
  redirect: string | null;
  /** The redirect_uri sent to the provider; the token request must send the very same. */
  redirectUri: string;
  /** Where the browser is sent with its one-time code: PUBLIC_URL, or the origin the flow began at. */
  returnBase: string;
  /** The provider and client the flow began with: settings changed meanwhile end the flow. */
  issuerUrl: string;
  clientId: string;
  /** Milliseconds since the epoch, by the application's Clock. */
  expiresAt: number;
}

const PURPOSE = 'certkeeper:oidc-flow:v1';

export function sealFlow(flow: FlowState, key: Buffer): string {
  return Buffer.from(sealSecret(JSON.stringify({ purpose: PURPOSE, ...flow }), key), 'utf8').toString('base64url');
}

/** The flow, or null when the value was not sealed by us for this purpose (forged, altered, another key). */
export function openFlow(value: string, key: Buffer): FlowState | null {
  try {
    const parsed = JSON.parse(openSecret(Buffer.from(value, 'base64url').toString('utf8'), key)) as Partial<FlowState> & {
      purpose?: unknown;
    };
    if (parsed.purpose !== PURPOSE) return null;
    const strings = ['state', 'nonce', 'codeVerifier', 'redirectUri', 'returnBase', 'issuerUrl', 'clientId'] as const;
    if (!strings.every((field) => typeof parsed[field] === 'string') || typeof parsed.expiresAt !== 'number') return null;
    if (parsed.redirect !== null && typeof parsed.redirect !== 'string') return null;
    const { purpose: _purpose, ...flow } = parsed;
    return flow as FlowState;
  } catch {
    return null;
  }
}

/**
 * A path on this site: one leading `/`, not `//` or `/\` (which browsers read as another host),
 * no control characters, at most 2048 characters.
 */
export function isRelativeRedirect(value: string): boolean {
  return (
    value.length <= 2048 &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    !value.startsWith('/\\') &&
    !value.includes('\\') &&
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u001f\u007f]/.test(value)
  );
}
