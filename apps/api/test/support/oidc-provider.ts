import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { default as ProviderClass, KoaContext } from 'oidc-provider';

/**
 * Runs `work` with oidc-provider's own console warnings left out: it warns once that Node 20 is
 * not its preferred runtime (it works) and that the in-memory adapter is for development only
 * (which is all a test needs). Other output passes through.
 */
async function withoutProviderWarnings<T>(work: () => T | Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('oidc-provider WARNING')) warn(...args);
  };
  try {
    return await work();
  } finally {
    console.warn = warn;
  }
}

/** A user at the test provider: the claims it releases, which a test may change between sign-ins. */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  /** Keycloak's shape of realm roles, for a role claim read by dotted path. */
  realm_access?: { roles: string[] };
}

/** How the token endpoint's ID token is altered before it leaves (null: untouched). */
export type IdTokenTampering = 'audience' | 'nonce' | 'expired' | 'foreign-signature' | null;

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by subject (the account id is the `sub`). */
  accounts: Map<string, TestAccount>;
  /** The account the next interaction signs in as. */
  signInAs(subject: string): void;
  tamperIdToken(mode: IdTokenTampering): void;
  /** While true every request is accepted and never answered (an HTTP tarpit). */
  setSlow(slow: boolean): void;
  /** How many requests reached a path (such as the discovery document's or the JWKS's) so far. */
  requestsTo(path: string): number;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider` 9) on 127.0.0.1 over http, with one confidential client
 * (client_secret_basic) for Certkeeper. Login and consent need no HTML: the interaction URL signs
 * in as the account chosen with signInAs() and grants the requested scopes at once.
 */
export async function startIdentityProvider(options: { redirectUris: string[] }): Promise<TestIdentityProvider> {
  const server: Server = createServer();
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const foreign = await generateKeyPair('RS256', { extractable: true });

  const clientId = 'certkeeper';
  const clientSecret = randomBytes(24).toString('hex');
  const accounts = new Map<string, TestAccount>();
  let nextSubject: string | null = null;
  let tampering: IdTokenTampering = null;
  let slow = false;

  const Provider: typeof ProviderClass = await withoutProviderWarnings(async () => (await import('oidc-provider')).default);
  const provider = await withoutProviderWarnings(
    () =>
      new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: options.redirectUris,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        jwks: { keys: [signingJwk] },
        cookies: { keys: [randomBytes(16).toString('hex')] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups', 'realm_access'] },
        features: { devInteractions: { enabled: false } },
        // Stated, so that the provider does not log a notice for each default.
        ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
        findAccount: (_ctx: unknown, subject: string) => {
          const account = accounts.get(subject);
          if (account === undefined) return undefined;
          return { accountId: subject, claims: () => ({ sub: subject, ...accounts.get(subject) }) };
        },
      }),
  );
  // Quiet: errors reach the test through the responses.
  provider.on('server_error', () => undefined);

  provider.use(async (ctx: KoaContext, next) => {
    if (slow) {
      await new Promise(() => undefined);
      return;
    }
    if (ctx.path.startsWith('/interaction/')) return interact(ctx);
    await next();
    if (ctx.path === '/token' && tampering !== null) await tamper(ctx);
  });

  async function interact(ctx: KoaContext): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const accountId = nextSubject ?? details.session?.accountId ?? null;
    if (accountId === null) {
      ctx.status = 400;
      ctx.body = 'the test chose no account (signInAs)';
      return;
    }
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
    grant.addOIDCScope(details.params.scope ?? 'openid');
    const grantId = await grant.save();
    const returnTo = await provider.interactionResult(
      ctx.req,
      ctx.res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  async function tamper(ctx: KoaContext): Promise<void> {
    const body = ctx.body as { id_token?: string } | undefined;
    if (typeof body?.id_token !== 'string') return;
    const claims = decodeJwt(body.id_token);
    const now = Math.floor(Date.now() / 1000);
    let key: Parameters<SignJWT['sign']>[0] = privateKey;
    switch (tampering) {
      case 'audience':
        claims.aud = 'someone-else';
        break;
      case 'nonce':
        claims.nonce = 'not-the-nonce-we-sent';
        break;
      case 'expired':
        claims.iat = now - 7200;
        claims.exp = now - 3600;
        break;
      case 'foreign-signature':
        key = foreign.privateKey;
        break;
      case null:
        return;
    }
    body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid }).sign(key);
    ctx.body = body;
  }

  const requestCounts = new Map<string, number>();
  server.on('request', (request: IncomingMessage) => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    requestCounts.set(path, (requestCounts.get(path) ?? 0) + 1);
  });
  server.on('request', provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signInAs: (subject) => {
      nextSubject = subject;
    },
    tamperIdToken: (mode) => {
      tampering = mode;
    },
    setSlow: (value) => {
      slow = value;
    },
    requestsTo: (path) => requestCounts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
