import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundDenyList } from '@certkeeper/net';
import { DataSource } from 'typeorm';
import { MINUTE, SECOND } from './support/fake-clock';
import { PROVIDER_METADATA_TTL_MS } from '../src/modules/oidc/identity-provider.client';
import { Browser, type Hop } from './support/browser';
import { startIdentityProvider, type TestIdentityProvider } from './support/oidc-provider';
import { bearer, createTestApp, createUser, login, type TestApp } from './support/test-app';
import { startTarpit } from './support/tls-servers';

const CALLBACK = '/api/v1/auth/oidc/callback';
const EXCHANGE = '/api/v1/auth/oidc/exchange';
const DEADLINE_MS = 1500;

/**
 * OIDC sign-in end to end (docs/api-contract.md section 9): a real OpenID provider in this process,
 * real HTTP redirects and cookies between it and the application, no part of Certkeeper replaced.
 */
describe('OIDC sign-in', () => {
  let t: TestApp;
  let idp: TestIdentityProvider;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({ identityProviderTimeoutMs: DEADLINE_MS });
    // The application's own address is PUBLIC_URL: the browser comes back to it.
    t.config.publicUrl = t.baseUrl;
    idp = await startIdentityProvider({ redirectUris: [`${t.baseUrl}${CALLBACK}`] });
    admin = await login(t);
  });
  afterAll(async () => {
    await idp.close();
    await t.close();
  });

  const settingsBody = (overrides: Record<string, unknown> = {}) => ({
    enabled: true,
    issuerUrl: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    roleClaim: 'groups',
    roleMapping: { admin: ['ck-admins'], operator: ['ck-operators'], viewer: ['ck-viewers'] },
    defaultRole: null,
    buttonLabel: 'Sign in with Test IdP',
    ...overrides,
  });
  const configure = async (overrides: Record<string, unknown> = {}) =>
    t.http.put('/api/v1/settings/oidc').set(bearer(admin)).send(settingsBody(overrides)).expect(200);

  const landingPrefix = () => `${t.baseUrl}/login/oidc`;
  const isCallback = (url: string) => url.startsWith(`${t.baseUrl}${CALLBACK}`);

  /** Starts a sign-in as `subject` and follows it until the browser would request the callback. */
  async function untilCallback(subject: string, browser = new Browser()): Promise<{ browser: Browser; callbackUrl: string }> {
    idp.signInAs(subject);
    const hop = await browser.follow(`${t.baseUrl}/api/v1/auth/oidc/login`, isCallback);
    if (hop.status !== 0) throw new Error(`the flow stopped before the callback: ${hop.status} ${hop.url} ${hop.body}`);
    return { browser, callbackUrl: hop.url };
  }

  /** A whole sign-in through the browser: the answer where it stopped (status 0 at the web landing page). */
  async function signIn(subject: string, redirect?: string): Promise<{ hop: Hop; code: string | null; browser: Browser }> {
    idp.signInAs(subject);
    const browser = new Browser();
    const start = `${t.baseUrl}/api/v1/auth/oidc/login${redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`}`;
    const hop = await browser.follow(start, (url) => url.startsWith(landingPrefix()));
    return { hop, code: hop.status === 0 ? new URL(hop.url).searchParams.get('code') : null, browser };
  }

  /** The web interface's exchange of a one-time code, sent with `browser`'s cookies (none without one). */
  const exchange = (code: string, browser?: Browser) => {
    const sent = t.http.post(EXCHANGE).send({ code });
    const cookies = browser?.cookieHeader(`${t.baseUrl}${EXCHANGE}`) ?? '';
    return cookies === '' ? sent : sent.set('Cookie', cookies);
  };

  async function signInAndExchange(
    subject: string,
  ): Promise<{ token: string; user: { id: string; email: string; name: string; role: string } }> {
    const { hop, code, browser } = await signIn(subject);
    if (code === null) throw new Error(`sign-in failed: ${hop.status} ${hop.body}`);
    const response = await exchange(code, browser).expect(200);
    return response.body as { token: string; user: { id: string; email: string; name: string; role: string } };
  }

  const expectPlainTextError = (hop: Hop, status: number, pattern?: RegExp) => {
    expect(hop.status).toBe(status);
    expect(hop.contentType).toMatch(/^text\/plain/);
    expect(hop.body).not.toMatch(/\bat .+\.(ts|js):\d+/);
    if (pattern) expect(hop.body).toMatch(pattern);
  };

  const callbackOf = (flow: { callbackUrl: string }) => flow.callbackUrl;

  const userCount = async () => Number((await t.app.get(DataSource).query('SELECT count(*) AS n FROM users'))[0].n);

  describe('settings', () => {
    it('are off until configured, and keep the client secret write-only', async () => {
      const initial = await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200);
      expect(initial.body).toMatchObject({ enabled: false, issuerUrl: null, clientSecretSet: false, scopes: 'openid email profile' });
      expect((await t.http.get('/api/v1/auth/oidc').expect(200)).body).toMatchObject({ enabled: false });
      await t.http.get('/api/v1/auth/oidc/login').expect(404);

      const saved = await configure();
      expect(saved.body).toMatchObject({ enabled: true, issuerUrl: idp.issuer, clientSecretSet: true, roleClaim: 'groups' });
      expect(JSON.stringify(saved.body)).not.toContain(idp.clientSecret);
      // Omitted keeps the secret.
      const { clientSecret: _omitted, ...withoutSecret } = settingsBody();
      const kept = await t.http.put('/api/v1/settings/oidc').set(bearer(admin)).send(withoutSecret).expect(200);
      expect(kept.body.clientSecretSet).toBe(true);
      const read = await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200);
      expect(JSON.stringify(read.body)).not.toContain(idp.clientSecret);
      const stored = JSON.stringify(await t.app.get(DataSource).query(`SELECT value FROM settings WHERE key = 'oidc'`));
      expect(stored).not.toContain(idp.clientSecret);

      const status = await t.http.get('/api/v1/auth/oidc').expect(200);
      expect(status.body).toEqual({ enabled: true, buttonLabel: 'Sign in with Test IdP', loginUrl: `${t.baseUrl}/api/v1/auth/oidc/login` });
    });

    it('need the client secret again to change the issuer or the client id, so it never follows them', async () => {
      await configure();
      const other = await startIdentityProvider({ redirectUris: [`${t.baseUrl}${CALLBACK}`] });
      try {
        const storedSecret = async () => JSON.stringify(await t.app.get(DataSource).query(`SELECT value FROM settings WHERE key = 'oidc'`));
        const before = await storedSecret();
        const { clientSecret: _omitted, ...withoutSecret } = settingsBody();
        for (const [change, named] of [
          [{ issuerUrl: other.issuer }, 'issuerUrl'],
          [{ clientId: 'another-client' }, 'clientId'],
          [{ issuerUrl: other.issuer, clientId: 'another-client', clientSecret: null }, 'issuerUrl or clientId'],
        ] as const) {
          const refused = await t.http
            .put('/api/v1/settings/oidc')
            .set(bearer(admin))
            .send({ ...withoutSecret, ...change })
            .expect(400);
          expect(refused.text.trim()).toBe(
            `clientSecret must be sent again when ${named} changes (or "" to clear it), ` +
              'so that the stored secret is never sent to an issuer or client it was not entered for.',
          );
        }
        expect(await storedSecret()).toBe(before);
        expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({
          issuerUrl: idp.issuer,
          clientId: idp.clientId,
          clientSecretSet: true,
        });

        // Clearing the issuer (sign-in off) sends the secret nowhere: taken, the secret kept. Setting
        // an issuer again is a change from none, which asks for the secret again.
        const { issuerUrl: _issuer, ...withoutIssuer } = withoutSecret;
        await t.http
          .put('/api/v1/settings/oidc')
          .set(bearer(admin))
          .send({ ...withoutIssuer, enabled: false, issuerUrl: null })
          .expect(200);
        const sealedSecret = async () =>
          (
            await t.app
              .get(DataSource)
              .query<{ sealed: string }[]>(`SELECT value->>'sealedClientSecret' AS sealed FROM settings WHERE key = 'oidc'`)
          )[0].sealed;
        expect(await sealedSecret()).toBe(JSON.parse(before)[0].value.sealedClientSecret);
        expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({
          issuerUrl: null,
          clientSecretSet: true,
        });
        await t.http.put('/api/v1/settings/oidc').set(bearer(admin)).send(withoutSecret).expect(400);

        // Cleared, or entered again, the change is taken.
        const cleared = await t.http
          .put('/api/v1/settings/oidc')
          .set(bearer(admin))
          .send({ ...withoutSecret, issuerUrl: other.issuer, clientSecret: '' })
          .expect(200);
        expect(cleared.body).toMatchObject({ issuerUrl: other.issuer, clientSecretSet: false });
        // With no secret stored there is nothing to follow a change.
        await t.http.put('/api/v1/settings/oidc').set(bearer(admin)).send(withoutSecret).expect(200);
        await configure({ issuerUrl: other.issuer, clientSecret: other.clientSecret });
      } finally {
        await configure();
        await other.close();
      }
    });

    it('write an audit entry without the secret', async () => {
      await configure();
      const audit = await t.http.get('/api/v1/audit?action=settings:oidc').set(bearer(admin)).expect(200);
      expect(audit.body.items.length).toBeGreaterThan(0);
      expect(audit.body.items[0].details).toMatchObject({ issuerUrl: idp.issuer, clientSecretSet: true });
      expect(JSON.stringify(audit.body)).not.toContain(idp.clientSecret);
    });

    it('need settings:view to read and settings:edit to change', async () => {
      const viewer = await createUser(t, 'viewer');
      const operator = await createUser(t, 'operator');
      await t.http.get('/api/v1/settings/oidc').expect(401);
      await t.http.get('/api/v1/settings/oidc').set(bearer(viewer.token)).expect(403);
      await t.http.get('/api/v1/settings/oidc').set(bearer(operator.token)).expect(200);
      await t.http.put('/api/v1/settings/oidc').set(bearer(operator.token)).send(settingsBody()).expect(403);
    });

    it.each([
      [{ issuerUrl: 'http://idp.example.com' }],
      [{ issuerUrl: 'not a url' }],
      [{ clientId: '' }],
      [{ defaultRole: 'root' }],
      [{ roleMapping: { admin: [1], operator: [], viewer: [] } }],
      [{ roleMapping: { admin: [] } }],
      [{ scopes: 'email profile' }],
      [{ unknown: true }],
    ])('refuse %j with 400', async (overrides) => {
      const response = await t.http.put('/api/v1/settings/oidc').set(bearer(admin)).send(settingsBody(overrides)).expect(400);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
    });

    it('answer 422 naming the problem when the discovery document cannot be used', async () => {
      const down = await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(admin))
        .send(settingsBody({ issuerUrl: 'http://127.0.0.1:9' }))
        .expect(422);
      expect(down.text).toMatch(/could not be read/);
      const mismatch = await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(admin))
        .send(settingsBody({ issuerUrl: `${idp.issuer}/other` }))
        .expect(422);
      expect(mismatch.text).toMatch(/HTTP 404|issuer/);
      // Not JSON: the application's own health route answers, but not with a discovery document.
      const notDiscovery = await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(admin))
        .send(settingsBody({ issuerUrl: t.baseUrl }))
        .expect(422);
      expect(notDiscovery.text).toMatch(/discovery document/);

      const tarpit = await startTarpit();
      try {
        const started = Date.now();
        const slow = await t.http
          .put('/api/v1/settings/oidc')
          .set(bearer(admin))
          .send(settingsBody({ issuerUrl: `http://127.0.0.1:${tarpit.port}` }))
          .expect(422);
        expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 3000);
        expect(slow.text).toMatch(/deadline/);
      } finally {
        await tarpit.close();
      }
      // Nothing was stored by the refusals.
      expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body.issuerUrl).toBe(idp.issuer);
    });
  });

  describe('discovery document checks', () => {
    let server: Server;
    let base: string;

    beforeAll(async () => {
      // Issuers under one local server, one per way a discovery document can be unusable.
      const documents: Record<string, (issuer: string) => string> = {
        '/big': (issuer) => JSON.stringify({ issuer, padding: 'x'.repeat(2 * 1024 * 1024) }),
        '/not-json': () => '<html>hello</html>',
        '/array': () => '[]',
        '/other-issuer': () => JSON.stringify({ issuer: 'https://elsewhere.example', authorization_endpoint: 'x' }),
        '/no-jwks': (issuer) => JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token` }),
        '/no-endpoints': (issuer) => JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }),
      };
      server = createServer((req, res) => {
        const prefix = (req.url ?? '').replace('/.well-known/openid-configuration', '');
        const document = documents[prefix];
        if (document === undefined) {
          res.statusCode = 404;
          res.end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(document(`${base}${prefix}`));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it.each([
      ['/big', /larger than 1048576 bytes/],
      ['/not-json', /is not JSON/],
      ['/array', /not a JSON object/],
      ['/other-issuer', /names the issuer "https:\/\/elsewhere.example"/],
      ['/no-jwks', /no usable jwks_uri/],
      ['/no-endpoints', /no usable authorization_endpoint, token_endpoint/],
      ['/missing', /answered HTTP 404/],
    ])('refuses the issuer %s with 422 naming the problem', async (path, problem) => {
      const response = await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(admin))
        .send(settingsBody({ issuerUrl: `${base}${path}` }))
        .expect(422);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.text).toMatch(problem);
    });

    it('refuses an issuer OUTBOUND_DENY forbids with 422', async () => {
      const guarded = await createTestApp({ outboundDeny: OutboundDenyList.of(['127.0.0.0/8']) });
      try {
        const token = await login(guarded);
        const response = await guarded.http.put('/api/v1/settings/oidc').set(bearer(token)).send(settingsBody()).expect(422);
        expect(response.text).toMatch(/refused by OUTBOUND_DENY: 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
      } finally {
        await guarded.close();
      }
    });
  });

  describe('sign-in', () => {
    beforeAll(() => configure());
    beforeEach(() => idp.tamperIdToken(null));

    it('provisions a user with the mapped role on first sign-in, and the token works', async () => {
      idp.accounts.set('sub-alice', { email: 'alice@idp.test', email_verified: true, name: 'Alice', groups: ['staff', 'ck-operators'] });
      const before = await userCount();
      const { hop, code, browser } = await signIn('sub-alice', '/endpoints?tag=web');
      expect(hop.status).toBe(0);
      expect(new URL(hop.url).searchParams.get('redirect')).toBe('/endpoints?tag=web');
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The flow cookie was set HttpOnly, SameSite=Lax on the OIDC path, and kept by the callback for the exchange.
      const login = browser.hops.find((h) => h.url.startsWith(`${t.baseUrl}/api/v1/auth/oidc/login`));
      expect(login?.status).toBe(302);
      expect(browser.cookie('certkeeper_oidc_flow')).toBeDefined();

      const exchanged = await exchange(code as string, browser).expect(200);
      expect(exchanged.headers['set-cookie']).toEqual([
        expect.stringMatching(/^certkeeper_oidc_flow=; Max-Age=0; Path=\/api\/v1\/auth\/oidc;/),
      ]);
      const signedIn = exchanged.body as { token: string; user: { id: string } };
      expect(signedIn.user).toMatchObject({ email: 'alice@idp.test', name: 'Alice', role: 'operator' });
      expect(await userCount()).toBe(before + 1);
      const me = await t.http.get('/api/v1/me').set(bearer(signedIn.token)).expect(200);
      expect(me.body).toMatchObject({
        email: 'alice@idp.test',
        role: 'operator',
        localSignIn: false,
        oidcLinked: true,
        lastSignInAt: t.clock.now().toISOString(),
      });

      const audit = await t.http.get(`/api/v1/audit?action=user:create&targetId=${signedIn.user.id}`).set(bearer(admin)).expect(200);
      expect(audit.body.items[0]).toMatchObject({ actor: `oidc:${idp.issuer}`, targetId: signedIn.user.id });
    });

    it('sets the flow cookie with the attributes the contract names', async () => {
      const browser = new Browser();
      idp.signInAs('sub-alice');
      const hop = await browser.request(`${t.baseUrl}/api/v1/auth/oidc/login`);
      expect(hop.status).toBe(302);
      const location = new URL(hop.location as string);
      expect(location.origin).toBe(idp.issuer);
      expect(location.searchParams.get('code_challenge_method')).toBe('S256');
      expect(location.searchParams.get('redirect_uri')).toBe(`${t.baseUrl}${CALLBACK}`);
      for (const parameter of ['state', 'nonce', 'code_challenge']) expect(location.searchParams.get(parameter)).toBeTruthy();
      const response = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
      const cookie = response.headers.getSetCookie()[0];
      expect(cookie).toMatch(/^certkeeper_oidc_flow=[A-Za-z0-9_-]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc; HttpOnly; SameSite=Lax$/);
    });

    it('without PUBLIC_URL, uses the origin the request came to', async () => {
      t.config.publicUrl = null;
      try {
        expect((await t.http.get('/api/v1/auth/oidc').expect(200)).body.loginUrl).toBe('/api/v1/auth/oidc/login');
        idp.accounts.set('sub-paz', { email: 'paz@idp.test', email_verified: true, name: 'Paz', groups: ['ck-viewers'] });
        const { hop, code, browser } = await signIn('sub-paz');
        expect(new URL(hop.url).origin).toBe(t.baseUrl);
        await exchange(code as string, browser).expect(200);
      } finally {
        t.config.publicUrl = t.baseUrl;
      }
    });

    it('marks the flow cookie Secure and uses PUBLIC_URL for the redirect URI when it is https', async () => {
      t.config.publicUrl = 'https://certkeeper.example/tools';
      try {
        const response = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location') as string);
        expect(location.searchParams.get('redirect_uri')).toBe('https://certkeeper.example/tools/api/v1/auth/oidc/callback');
        expect(response.headers.getSetCookie()[0]).toMatch(/; Path=\/tools\/api\/v1\/auth\/oidc; HttpOnly; SameSite=Lax; Secure$/);
      } finally {
        t.config.publicUrl = t.baseUrl;
      }
    });

    it('matches by subject on the next sign-in after the e-mail changed at the provider', async () => {
      idp.accounts.set('sub-bob', { email: 'bob@idp.test', email_verified: true, name: 'Bob', groups: ['ck-viewers'] });
      const first = await signInAndExchange('sub-bob');
      idp.accounts.set('sub-bob', { email: 'robert@idp.test', email_verified: true, name: 'Robert', groups: ['ck-viewers'] });
      const second = await signInAndExchange('sub-bob');
      expect(second.user.id).toBe(first.user.id);
      expect(second.user).toMatchObject({ email: 'robert@idp.test', name: 'Robert', role: 'viewer' });
    });

    it('keeps the old e-mail when the new one belongs to another user', async () => {
      const other = await createUser(t, 'viewer');
      idp.accounts.set('sub-carol', { email: 'carol@idp.test', email_verified: true, name: 'Carol', groups: ['ck-viewers'] });
      const first = await signInAndExchange('sub-carol');
      idp.accounts.set('sub-carol', { email: other.email, email_verified: true, name: 'Carol', groups: ['ck-viewers'] });
      const second = await signInAndExchange('sub-carol');
      expect(second.user).toMatchObject({ id: first.user.id, email: 'carol@idp.test' });
    });

    it('links an existing password user by verified e-mail', async () => {
      const existing = await createUser(t, 'viewer');
      idp.accounts.set('sub-dave', { email: existing.email, email_verified: true, name: 'Dave', groups: ['ck-viewers'] });
      expect((await t.http.get(`/api/v1/users/${existing.id}`).set(bearer(admin)).expect(200)).body).toMatchObject({ oidcLinked: false });
      const before = await userCount();
      const signedIn = await signInAndExchange('sub-dave');
      expect(signedIn.user.id).toBe(existing.id);
      expect(await userCount()).toBe(before);
      expect((await t.http.get(`/api/v1/users/${existing.id}`).set(bearer(admin)).expect(200)).body).toMatchObject({
        localSignIn: true,
        oidcLinked: true,
      });
      // The password still works too.
      await login(t, existing.email, existing.password);
      // The link is audited with the identity it links, and nothing secret.
      const audit = await t.http.get(`/api/v1/audit?action=user:oidc_link&targetId=${existing.id}`).set(bearer(admin)).expect(200);
      expect(audit.body.items).toEqual([
        expect.objectContaining({
          actor: `oidc:${idp.issuer}`,
          targetType: 'user',
          details: { email: existing.email, issuer: idp.issuer, subject: 'sub-dave' },
        }),
      ]);
      expect(JSON.stringify(audit.body)).not.toContain(idp.clientSecret);
    });

    it('cannot make a viewer an administrator through a colleague’s address she gave herself', async () => {
      // The attack: a viewer takes a colleague's address; the colleague's first single sign-on
      // (mapped to admin) would then link to her account and make it an administrator.
      const viewer = await createUser(t, 'viewer');
      const colleague = 'colin@idp.test';
      idp.accounts.set('sub-colin', { email: colleague, email_verified: true, name: 'Colin', groups: ['ck-admins'] });
      const refused = await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ email: colleague }).expect(400);
      expect(refused.text).toMatch(/^email cannot be changed here: an administrator changes e-mail addresses/);

      const colin = await signInAndExchange('sub-colin');
      expect(colin.user).toMatchObject({ email: colleague, role: 'admin' });
      expect(colin.user.id).not.toBe(viewer.id);

      const own = await login(t, viewer.email, viewer.password);
      expect((await t.http.get('/api/v1/me').set(bearer(own)).expect(200)).body).toMatchObject({
        id: viewer.id,
        email: viewer.email,
        role: 'viewer',
        oidcLinked: false,
      });
      await t.http
        .post('/api/v1/users')
        .set(bearer(own))
        .send({ email: 'mallory-admin@certkeeper.test', role: 'admin', password: 'mallory-password-1' })
        .expect(403);
      const links = await t.http.get(`/api/v1/audit?action=user:oidc_link&targetId=${viewer.id}`).set(bearer(admin)).expect(200);
      expect(links.body.items).toEqual([]);
    });

    it.each([[false], [undefined]])('does not match by e-mail when email_verified is %s', async (verified) => {
      const existing = await createUser(t, 'viewer');
      const subject = `sub-unverified-${String(verified)}`;
      idp.accounts.set(subject, { email: existing.email, email_verified: verified, name: 'Mallory', groups: ['ck-admins'] });
      const before = await userCount();
      const { hop } = await signIn(subject);
      expectPlainTextError(hop, 403, /verified/);
      expect(await userCount()).toBe(before);
      const row = await t.app.get(DataSource).query('SELECT oidc_subject, role FROM users WHERE id = $1', [existing.id]);
      expect(row[0]).toEqual({ oidc_subject: null, role: 'viewer' });
    });

    it('recomputes the role from the groups claim at every sign-in', async () => {
      idp.accounts.set('sub-erin', { email: 'erin@idp.test', email_verified: true, name: 'Erin', groups: ['ck-viewers'] });
      const first = await signInAndExchange('sub-erin');
      expect(first.user.role).toBe('viewer');
      idp.accounts.set('sub-erin', { email: 'erin@idp.test', email_verified: true, name: 'Erin', groups: ['ck-viewers', 'ck-admins'] });
      const promoted = await signInAndExchange('sub-erin');
      expect(promoted.user).toMatchObject({ id: first.user.id, role: 'admin' });
      const audit = await t.http.get(`/api/v1/audit?action=user:update&targetId=${first.user.id}`).set(bearer(admin)).expect(200);
      expect(audit.body.items[0].details).toMatchObject({ role: 'admin', previousRole: 'viewer' });
      idp.accounts.set('sub-erin', { email: 'erin@idp.test', email_verified: true, name: 'Erin', groups: ['ck-operators'] });
      expect((await signInAndExchange('sub-erin')).user.role).toBe('operator');
      // No mapped role any more and no default role: refused, and the role stays as it was.
      idp.accounts.set('sub-erin', { email: 'erin@idp.test', email_verified: true, name: 'Erin', groups: [] });
      expectPlainTextError((await signIn('sub-erin')).hop, 403, /role/);
    });

    it('refuses a user with no mappable role and no default role, creating nobody', async () => {
      idp.accounts.set('sub-frank', { email: 'frank@idp.test', email_verified: true, name: 'Frank', groups: ['other'] });
      const before = await userCount();
      const { hop } = await signIn('sub-frank');
      expectPlainTextError(hop, 403, /role/);
      expect(await userCount()).toBe(before);
    });

    it('gives the default role when no mapping applies and a default is set', async () => {
      await configure({ defaultRole: 'viewer' });
      try {
        idp.accounts.set('sub-gina', { email: 'gina@idp.test', email_verified: true, name: 'Gina', groups: ['other'] });
        expect((await signInAndExchange('sub-gina')).user.role).toBe('viewer');
      } finally {
        await configure();
      }
    });

    it('reads a nested role claim by its dotted path', async () => {
      await configure({ roleClaim: 'realm_access.roles' });
      try {
        idp.accounts.set('sub-quinn', {
          email: 'quinn@idp.test',
          email_verified: true,
          name: 'Quinn',
          realm_access: { roles: ['ck-admins'] },
        });
        expect((await signInAndExchange('sub-quinn')).user.role).toBe('admin');
      } finally {
        await configure();
      }
    });

    it('refuses a disabled user', async () => {
      idp.accounts.set('sub-hank', { email: 'hank@idp.test', email_verified: true, name: 'Hank', groups: ['ck-viewers'] });
      const { user } = await signInAndExchange('sub-hank');
      await t.http
        .put(`/api/v1/users/${user.id}`)
        .set(bearer(admin))
        .send({ email: user.email, role: 'viewer', disabled: true })
        .expect(200);
      expectPlainTextError((await signIn('sub-hank')).hop, 403, /disabled/);
    });

    it('refuses a disabled user at the exchange', async () => {
      idp.accounts.set('sub-ivy', { email: 'ivy@idp.test', email_verified: true, name: 'Ivy', groups: ['ck-viewers'] });
      const { user } = await signInAndExchange('sub-ivy');
      const { code, browser } = await signIn('sub-ivy');
      await t.http
        .put(`/api/v1/users/${user.id}`)
        .set(bearer(admin))
        .send({ email: user.email, role: 'viewer', disabled: true })
        .expect(200);
      await exchange(code as string, browser).expect(403);
    });
    it('never demotes the last enabled administrator', async () => {
      idp.accounts.set('sub-olga', { email: 'olga@idp.test', email_verified: true, name: 'Olga', groups: ['ck-admins'] });
      const olga = await signInAndExchange('sub-olga');
      expect(olga.user.role).toBe('admin');
      const bootstrap = (await t.http.get('/api/v1/me').set(bearer(admin)).expect(200)).body as { id: string; email: string };
      const setBootstrapRole = (token: string, role: string) =>
        t.http.put(`/api/v1/users/${bootstrap.id}`).set(bearer(token)).send({ email: bootstrap.email, role }).expect(200);
      // Every other administrator of the test app is demoted first: Olga is the last one.
      const admins = (await t.http.get('/api/v1/users').set(bearer(admin)).expect(200)).body as {
        id: string;
        email: string;
        role: string;
      }[];
      for (const other of admins.filter((u) => u.role === 'admin' && u.id !== olga.user.id && u.id !== bootstrap.id)) {
        await t.http.put(`/api/v1/users/${other.id}`).set(bearer(admin)).send({ email: other.email, role: 'viewer' }).expect(200);
      }
      await setBootstrapRole(olga.token, 'viewer');
      try {
        idp.accounts.set('sub-olga', { email: 'olga@idp.test', email_verified: true, name: 'Olga', groups: ['ck-viewers'] });
        expect((await signInAndExchange('sub-olga')).user.role).toBe('admin');
        idp.accounts.set('sub-olga', { email: 'olga@idp.test', email_verified: true, name: 'Olga', groups: [] });
        expect((await signInAndExchange('sub-olga')).user.role).toBe('admin');
      } finally {
        await setBootstrapRole(olga.token, 'admin');
      }
      // With another administrator again, the provider's groups apply.
      idp.accounts.set('sub-olga', { email: 'olga@idp.test', email_verified: true, name: 'Olga', groups: ['ck-viewers'] });
      expect((await signInAndExchange('sub-olga')).user.role).toBe('viewer');
    });
  });

  describe('refusals of the callback', () => {
    beforeAll(() => configure());
    beforeEach(() => {
      idp.tamperIdToken(null);
      idp.accounts.set('sub-jo', { email: 'jo@idp.test', email_verified: true, name: 'Jo', groups: ['ck-viewers'] });
    });

    it('refuses a replayed callback (same URL and cookie) with 400', async () => {
      const { browser, callbackUrl } = await untilCallback('sub-jo');
      const cookie = browser.cookieHeader(callbackUrl);
      const first = await browser.request(callbackUrl);
      expect(first.status).toBe(302);
      const replay = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie } });
      expect(replay.status).toBe(400);
      expect(await replay.text()).toMatch(/already used/);
    });

    it('refuses a forged or mismatched state with 400', async () => {
      const mine = await untilCallback('sub-jo');
      const theirs = await untilCallback('sub-jo');
      // Another flow's callback (its state and code) with this browser's cookie.
      expectPlainTextError(await mine.browser.request(theirs.callbackUrl), 400, /state/);
      const forged = new URL(theirs.callbackUrl);
      forged.searchParams.set('state', 'forged-state');
      expectPlainTextError(await theirs.browser.request(forged.href), 400, /state/);
      const missing = new URL(callbackOf(await untilCallback('sub-jo')));
      missing.searchParams.delete('state');
      expect((await fetch(missing, { redirect: 'manual' })).status).toBe(400);
    });

    it('refuses a callback without the flow cookie, or with a forged one, with 400', async () => {
      const { callbackUrl } = await untilCallback('sub-jo');
      const bare = await fetch(callbackUrl, { redirect: 'manual' });
      expect(bare.status).toBe(400);
      expect(await bare.text()).toMatch(/cookie is missing/);
      const forged = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: 'certkeeper_oidc_flow=AAAA' } });
      expect(forged.status).toBe(400);
    });

    it('refuses an expired flow with 400', async () => {
      const { browser, callbackUrl } = await untilCallback('sub-jo');
      t.clock.advance(11 * MINUTE);
      try {
        expectPlainTextError(await browser.request(callbackUrl), 400, /expired/);
      } finally {
        t.clock.advance(-11 * MINUTE);
      }
    });

    it('refuses an authorization code used twice with 401', async () => {
      const used = await untilCallback('sub-jo');
      expect((await used.browser.request(used.callbackUrl)).status).toBe(302);
      const fresh = await untilCallback('sub-jo');
      const reused = new URL(fresh.callbackUrl);
      reused.searchParams.set('code', new URL(used.callbackUrl).searchParams.get('code') as string);
      expectPlainTextError(await fresh.browser.request(reused.href), 401);
    });

    it('refuses the provider error parameter with 401', async () => {
      const { browser, callbackUrl } = await untilCallback('sub-jo');
      const url = new URL(callbackUrl);
      url.searchParams.delete('code');
      url.searchParams.set('error', 'access_denied');
      expectPlainTextError(await browser.request(url.href), 401, /access_denied/);
    });

    it.each([['audience'], ['nonce'], ['expired'], ['foreign-signature']] as const)(
      'refuses an ID token tampered for %s with 401',
      async (mode) => {
        const before = await userCount();
        idp.accounts.set('sub-kim', { email: 'kim@idp.test', email_verified: true, name: 'Kim', groups: ['ck-admins'] });
        idp.tamperIdToken(mode);
        const { hop } = await signIn('sub-kim');
        expectPlainTextError(hop, 401, /did not verify/);
        expect(await userCount()).toBe(before);
      },
    );

    it('refuses an ID token that expired by the application clock with 401', async () => {
      // The provider's ID tokens live one hour. With the application's clock two hours ahead of the
      // provider's for the whole flow, the flow is fresh but the token already expired.
      const real = t.clock.now();
      t.clock.set(new Date(real.getTime() + 120 * MINUTE));
      try {
        const { browser, callbackUrl } = await untilCallback('sub-jo');
        expectPlainTextError(await browser.request(callbackUrl), 401, /did not verify: JWT timestamp claim value failed validation/);
      } finally {
        t.clock.set(real);
      }
    });

    it('answers 400 for a redirect that is not a path on this site', async () => {
      for (const redirect of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'relative']) {
        const response = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login?redirect=${encodeURIComponent(redirect)}`, {
          redirect: 'manual',
        });
        expect(response.status).toBe(400);
      }
    });
  });

  describe('one-time code', () => {
    beforeAll(() => configure());

    it('is redeemed once', async () => {
      idp.accounts.set('sub-lee', { email: 'lee@idp.test', email_verified: true, name: 'Lee', groups: ['ck-viewers'] });
      const { code, browser } = await signIn('sub-lee');
      await exchange(code as string, browser).expect(200);
      const again = await exchange(code as string, browser).expect(401);
      expect(again.headers['content-type']).toMatch(/^text\/plain/);
      await exchange('no-such-code').expect(401);
      await t.http.post('/api/v1/auth/oidc/exchange').send({}).expect(400);
      await t.http.post('/api/v1/auth/oidc/exchange').send({ code: 7 }).expect(400);
    });

    it('signs in only the browser that started the sign-in: a code planted in another is 401 and spent', async () => {
      idp.accounts.set('sub-mal', { email: 'mal@idp.test', email_verified: true, name: 'Mal', groups: ['ck-viewers'] });
      // The attacker finishes a sign-in of their own and plants its code in the victim's browser,
      // which has no flow cookie, or one of its own sign-in.
      const { code: planted } = await signIn('sub-mal');
      const victim = new Browser();
      const refused = await exchange(planted as string, victim).expect(401);
      expect(refused.text).toMatch(/^The sign-in code is unknown, used or expired, or this browser did not start its sign-in/);
      const { code: another, browser: attacker } = await signIn('sub-mal');
      const { browser: victimMidFlow } = await signIn('sub-lee');
      expect(victimMidFlow.cookie('certkeeper_oidc_flow')).toBeDefined();
      await exchange(another as string, victimMidFlow).expect(401);
      await exchange(another as string).expect(401);
      // Spent: not even the browser it was issued to can use it now.
      await exchange(another as string, attacker).expect(401);
      // A forged cookie is no browser at all.
      await t.http.post(EXCHANGE).set('Cookie', 'certkeeper_oidc_flow=forged').send({ code: planted }).expect(401);
    });

    it('expires after 60 seconds by the application clock', async () => {
      idp.accounts.set('sub-lee', { email: 'lee@idp.test', email_verified: true, name: 'Lee', groups: ['ck-viewers'] });
      const { code, browser } = await signIn('sub-lee');
      const { code: neverRedeemed, browser: other } = await signIn('sub-lee');
      t.clock.advance(61 * SECOND);
      await exchange(code as string, browser).expect(401);
      const expiredRows = async () =>
        Number(
          (await t.app.get(DataSource).query('SELECT count(*) AS n FROM oidc_login_codes WHERE expires_at < $1', [t.clock.now()]))[0].n,
        );
      // At least the code never redeemed (codes other tests left unredeemed expired too).
      expect(await expiredRows()).toBeGreaterThanOrEqual(1);
      // Expired rows go when new ones are written: the next sign-in removes the code never redeemed.
      await signIn('sub-lee');
      expect(await expiredRows()).toBe(0);
      await exchange(neverRedeemed as string, other).expect(401);
    });
  });

  describe("the provider's metadata and keys", () => {
    const DISCOVERY = '/.well-known/openid-configuration';
    const reads = () => ({ discovery: idp.requestsTo(DISCOVERY), keys: idp.requestsTo('/jwks') });
    const readsSince = (before: { discovery: number; keys: number }) => {
      const now = reads();
      return { discovery: now.discovery - before.discovery, keys: now.keys - before.keys };
    };

    beforeEach(async () => {
      // Saving the settings makes this replica read the provider afresh.
      await configure();
      idp.accounts.set('sub-kim', { email: 'kim@idp.test', email_verified: true, name: 'Kim', groups: ['ck-viewers'] });
    });
    afterEach(() => idp.tamperIdToken(null));

    it('are read once for consecutive sign-ins, not at every step', async () => {
      let before = reads();
      await signInAndExchange('sub-kim');
      expect(readsSince(before)).toEqual({ discovery: 1, keys: 1 });
      before = reads();
      await signInAndExchange('sub-kim');
      await signInAndExchange('sub-kim');
      expect(readsSince(before)).toEqual({ discovery: 0, keys: 0 });
    });

    it('are read again once the metadata is ten minutes old by the application clock', async () => {
      await signInAndExchange('sub-kim');
      t.clock.advance(PROVIDER_METADATA_TTL_MS - SECOND);
      try {
        let before = reads();
        await signInAndExchange('sub-kim');
        expect(readsSince(before).discovery).toBe(0);
        t.clock.advance(2 * SECOND);
        before = reads();
        await signInAndExchange('sub-kim');
        expect(readsSince(before)).toEqual({ discovery: 1, keys: 1 });
      } finally {
        t.clock.advance(-(PROVIDER_METADATA_TTL_MS + SECOND));
      }
    });

    it('are read again after a step that failed', async () => {
      await signInAndExchange('sub-kim');
      idp.tamperIdToken('foreign-signature');
      const { browser, callbackUrl } = await untilCallback('sub-kim');
      expect((await browser.request(callbackUrl)).status).toBe(401);
      idp.tamperIdToken(null);
      const before = reads();
      await signInAndExchange('sub-kim');
      expect(readsSince(before)).toEqual({ discovery: 1, keys: 1 });
    });

    it('are read again when the settings are saved', async () => {
      await signInAndExchange('sub-kim');
      await configure();
      const before = reads();
      await signInAndExchange('sub-kim');
      expect(readsSince(before)).toEqual({ discovery: 1, keys: 1 });
    });
  });

  describe('an unavailable provider', () => {
    it('answers 502 quickly when the issuer is down', async () => {
      const other = await startIdentityProvider({ redirectUris: [`${t.baseUrl}${CALLBACK}`] });
      other.accounts.set('sub-mo', { email: 'mo@idp.test', email_verified: true, name: 'Mo', groups: ['ck-viewers'] });
      await configure({ issuerUrl: other.issuer, clientId: other.clientId, clientSecret: other.clientSecret });
      idp.signInAs('sub-mo');
      other.signInAs('sub-mo');
      const browser = new Browser();
      const hop = await browser.follow(`${t.baseUrl}/api/v1/auth/oidc/login`, isCallback);
      expect(hop.status).toBe(0);
      await other.close();
      const started = Date.now();
      expectPlainTextError(await browser.request(hop.url), 502, /identity provider/);
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
      // And a new sign-in cannot start.
      const login = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
      expect(login.status).toBe(502);
      await configure();
    });

    it('answers 502 within the deadline when the issuer does not answer', async () => {
      await configure();
      idp.accounts.set('sub-ned', { email: 'ned@idp.test', email_verified: true, name: 'Ned', groups: ['ck-viewers'] });
      const { browser, callbackUrl } = await untilCallback('sub-ned');
      idp.setSlow(true);
      try {
        const started = Date.now();
        expectPlainTextError(await browser.request(callbackUrl), 502, /identity provider/);
        const elapsed = Date.now() - started;
        expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
        expect(elapsed).toBeLessThan(DEADLINE_MS + 2000);
      } finally {
        idp.setSlow(false);
      }
    });
  });
});
