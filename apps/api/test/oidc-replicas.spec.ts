import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/common/net/free-port';
import { Browser } from './support/browser';
import { startIdentityProvider, type TestIdentityProvider } from './support/oidc-provider';
import { type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { createTestDatabase } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';

const ADMIN = { email: 'admin@oidc-replicas.test', password: 'replica-password-1' };
const CALLBACK = '/api/v1/auth/oidc/callback';

/**
 * Two API processes on one database with the same JWT_SECRET and ENCRYPTION_KEY, as two replicas
 * behind a load balancer. PUBLIC_URL is the address the browser uses (here replica A's own, since
 * there is no real balancer in front); the test plays the balancer by sending some of the
 * browser's requests to replica B instead: the same URL path, the same cookies (cookies belong to
 * the host, not the port), another process. That is all a balancer without sticky sessions does.
 */
describe('OIDC sign-in on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let replicas: RunningService[] = [];
  let idp: TestIdentityProvider;
  let a: RunningService;
  let b: RunningService;
  let adminToken: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-oidc-replicas-'));
    databaseName = await createTestDatabase();
    const [portA, portB] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${portA}`;
    idp = await startIdentityProvider({ redirectUris: [`${publicUrl}${CALLBACK}`] });
    const env = {
      ...sharedServiceEnvironment(databaseUrl(databaseName), ADMIN),
      PUBLIC_URL: publicUrl,
      // Never the real CCADB.
      ROOT_STORES_CSV_URL: 'http://127.0.0.1:9/roots.csv',
      ROOT_STORES_PEM_URLS: 'http://127.0.0.1:9/roots.pem',
    };
    const started = await Promise.allSettled(
      [
        ['a', portA],
        ['b', portB],
      ].map(async ([name, port]) => {
        // PORT chosen here (the environment given wins over startService's own pick), so that
        // PUBLIC_URL can name replica A before it starts.
        const service = await startService({ ...env, PORT: String(port), DATA_DIR: join(directory, String(name)) });
        return { ...service, baseUrl: `http://127.0.0.1:${port}` };
      }),
    );
    replicas = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    for (const start of started) if (start.status === 'rejected') throw start.reason;
    [a, b] = replicas;
    expect(a.baseUrl).toBe(publicUrl);

    const login = await fetch(`${a.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    adminToken = ((await login.json()) as { token: string }).token;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => stopService(replica)));
    await idp?.close();
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  });

  const onB = (url: string) => url.replace(a.baseUrl, b.baseUrl);

  it('finishes on B a sign-in that began on A, and a logout on A ends the session on B', async () => {
    // Configured through A's settings route.
    const configured = await fetch(`${a.baseUrl}/api/v1/settings/oidc`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        enabled: true,
        issuerUrl: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        roleClaim: 'groups',
        roleMapping: { admin: [], operator: ['ck-operators'], viewer: [] },
      }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(configured.status).toBe(200);

    idp.accounts.set('sub-rhea', { email: 'rhea@idp.test', email_verified: true, name: 'Rhea', groups: ['ck-operators'] });
    idp.signInAs('sub-rhea');
    const browser = new Browser();
    // A starts the flow and sets the sealed flow cookie; the provider sends the browser to the callback.
    const atCallback = await browser.follow(`${a.baseUrl}/api/v1/auth/oidc/login`, (url) => url.startsWith(`${a.baseUrl}${CALLBACK}`));
    expect(atCallback.status).toBe(0);
    const cookiesAtCallback = browser.cookieHeader(atCallback.url);
    // The balancer routes the callback to B, which has never seen this flow: the cookie carries it.
    const callback = await browser.request(onB(atCallback.url));
    expect(callback.status).toBe(302);
    const landing = new URL(callback.location as string);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${a.baseUrl}/login/oidc`);
    const code = landing.searchParams.get('code') as string;

    // A replay of the same callback on A is refused: B recorded the state in the shared database.
    const replay = await fetch(atCallback.url, { redirect: 'manual', headers: { cookie: cookiesAtCallback } });
    expect(replay.status).toBe(400);

    // The one-time code is redeemed on B once, by the browser that signed in, and then nowhere else.
    const exchange = (replica: RunningService) =>
      fetch(`${replica.baseUrl}/api/v1/auth/oidc/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: browser.cookieHeader(`${replica.baseUrl}/api/v1/auth/oidc/exchange`) },
        body: JSON.stringify({ code }),
      });
    const redeemed = await exchange(b);
    expect(redeemed.status).toBe(200);
    const signedIn = (await redeemed.json()) as { token: string; user: { email: string; role: string } };
    expect(signedIn.user).toMatchObject({ email: 'rhea@idp.test', role: 'operator' });
    expect((await exchange(a)).status).toBe(401);

    const me = (replica: RunningService) =>
      fetch(`${replica.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${signedIn.token}` } });
    expect((await me(a)).status).toBe(200);
    expect((await me(b)).status).toBe(200);

    // Logout on A ends the JWT at once on B as well.
    const logout = await fetch(`${a.baseUrl}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${signedIn.token}` },
    });
    expect(logout.status).toBe(204);
    expect((await me(b)).status).toBe(401);
    expect((await me(a)).status).toBe(401);
  }, 60_000);
});
