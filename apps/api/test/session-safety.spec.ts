import { request as httpRequest } from 'node:http';
import { DataSource } from 'typeorm';
import { LoginThrottle } from '../src/modules/sessions/login-throttle';
import { SignInHousekeeping } from '../src/modules/sessions/sign-in-housekeeping';
import { MINUTE, SECOND } from './support/fake-clock';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  apiKeySecret,
  bearer,
  createTestApp,
  createUser,
  login,
  type TestApp,
  createSignedInTestApp,
} from './support/test-app';

interface AuditRow {
  actor: string;
  action: string;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** docs/api-contract.md section 10: sessions that end when they should, and sign-in limits. */
describe('session safety', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  const me = (token: string) => t.http.get('/api/v1/me').set(bearer(token));
  const auditOf = async (action: string, targetId: string): Promise<AuditRow[]> =>
    ((await t.http.get('/api/v1/audit').query({ action, targetId }).set(bearer(admin)).expect(200)).body as { items: AuditRow[] }).items;
  const tryLogin = (email: string, password: string) => t.http.post('/api/v1/auth/login').send({ email, password });

  /** A sign-in from another machine: the client socket bound to `from`, a loopback address such as 127.0.0.2. */
  const loginFrom = (from: string, email: string, password: string) =>
    new Promise<{ status: number; retryAfter: string | undefined; text: string }>((resolve, reject) => {
      const body = JSON.stringify({ email, password });
      const { hostname, port } = new URL(t.baseUrl);
      const sent = httpRequest(
        {
          host: hostname,
          port,
          path: '/api/v1/auth/login',
          method: 'POST',
          localAddress: from,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          signal: AbortSignal.timeout(30_000),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: response.headers['retry-after'],
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });

  describe('a password change', () => {
    it('ends every session of the user at once (the caller’s too), and the new password signs in', async () => {
      const user = await createUser(t, 'viewer');
      const other = await login(t, user.email, user.password);
      await me(user.token).expect(200);

      await t.http
        .put('/api/v1/me')
        .set(bearer(user.token))
        .send({ currentPassword: user.password, password: 'a-brand-new-password' })
        .expect(200);

      expect((await me(user.token).expect(401)).text).toContain('Invalid, expired or revoked token');
      await me(other).expect(401);
      await tryLogin(user.email, user.password).expect(401);
      await me(await login(t, user.email, 'a-brand-new-password')).expect(200);

      const [entry] = await auditOf('user:update', user.id);
      expect(entry).toMatchObject({ actor: user.email, details: { password: 'changed', sessionsEnded: 2 } });
      expect(JSON.stringify(entry)).not.toContain('scrypt');
    });

    it('by an administrator ends the sessions but keeps the API keys, unless asked to revoke them', async () => {
      const user = await createUser(t, 'operator');
      const key = (
        (await t.http.post('/api/v1/me/api-keys').set(bearer(user.token)).send({ name: 'ci' }).expect(201)).body as { key: string }
      ).key;

      await t.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ password: 'reset-by-admin-1' }).expect(200);
      await me(user.token).expect(401);
      await me(key).expect(200);

      await t.http
        .put(`/api/v1/users/${user.id}`)
        .set(bearer(admin))
        .send({ password: 'reset-by-admin-2', revokeApiKeys: true })
        .expect(200);
      await me(key).expect(401);
      expect(
        (
          await t.http
            .get('/api/v1/me/api-keys')
            .set(bearer(await login(t, user.email, 'reset-by-admin-2')))
            .expect(200)
        ).body,
      ).toEqual([]);
      const [latest] = await auditOf('user:update', user.id);
      expect(latest).toMatchObject({ actor: ADMIN_EMAIL, details: { password: 'changed', apiKeysRevoked: 1 } });
    });

    it('leaves the sessions alone when nothing about the password changed', async () => {
      const user = await createUser(t, 'viewer');
      await t.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ name: 'Renamed', role: 'operator' }).expect(200);
      expect((await me(user.token).expect(200)).body).toMatchObject({ name: 'Renamed', role: 'operator' });
      const [entry] = await auditOf('user:update', user.id);
      expect(entry.details).toEqual({ name: 'Renamed', role: 'operator', sessionsEnded: 0, apiKeysRevoked: 0 });
    });
  });

  describe('logout', () => {
    it('ends the calling session only', async () => {
      const user = await createUser(t, 'viewer');
      const second = await login(t, user.email, user.password);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).expect(204);
      await me(user.token).expect(401);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).expect(401);
      await me(second).expect(200);
    });

    it('is refused for an API key, which is not a session', async () => {
      const user = await createUser(t, 'viewer');
      const key = (
        (await t.http.post('/api/v1/me/api-keys').set(bearer(user.token)).send({ name: 'k' }).expect(201)).body as { key: string }
      ).key;
      expect((await t.http.post('/api/v1/auth/logout').set(bearer(key)).expect(400)).text).toContain('API key');
      await me(key).expect(200);
    });

    it('needs a token', async () => {
      await t.http.post('/api/v1/auth/logout').expect(401);
    });
  });

  describe('sign-in limits', () => {
    it('answers 429 with Retry-After after ten wrong passwords, even for the right one, until the window has passed', async () => {
      const user = await createUser(t, 'viewer');
      for (let attempt = 0; attempt < 10; attempt += 1) await tryLogin(user.email, `wrong-${attempt}`).expect(401);

      const refused = await tryLogin(user.email, user.password).expect(429);
      expect(refused.text).toMatch(/^Too many failed sign-in attempts for this account from your address; try again in \d+ seconds\./);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      // The address is not locked: another account from it signs in.
      await me(await login(t)).expect(200);

      t.clock.advance(10 * MINUTE);
      const later = await tryLogin(user.email, user.password.toUpperCase()).expect(429);
      expect(Number(later.headers['retry-after'])).toBeLessThanOrEqual(5 * 60);

      t.clock.advance(5 * MINUTE + SECOND);
      await me(await login(t, user.email, user.password)).expect(200);
    });

    it('locks an account out only for the address its failures came from', async () => {
      const user = await createUser(t, 'admin');
      for (let attempt = 0; attempt < 10; attempt += 1)
        expect((await loginFrom('127.0.0.2', user.email, `wrong-${attempt}`)).status).toBe(401);
      const refused = await loginFrom('127.0.0.2', user.email, user.password);
      expect(refused).toMatchObject({
        status: 429,
        text: expect.stringMatching(/^Too many failed sign-in attempts for this account from/),
      });
      expect(Number(refused.retryAfter)).toBeGreaterThan(14 * 60);

      // The administrator, at another address, still signs in; that success leaves the other address's count alone.
      expect((await loginFrom('127.0.0.1', user.email, user.password)).status).toBe(200);
      expect((await loginFrom('127.0.0.2', user.email, user.password)).status).toBe(429);

      t.clock.advance(15 * MINUTE + SECOND);
      expect((await loginFrom('127.0.0.2', user.email, user.password)).status).toBe(200);
    }, 60_000);

    it('counts failures for unknown e-mail addresses the same way', async () => {
      for (let attempt = 0; attempt < 10; attempt += 1) await tryLogin('nobody@certkeeper.test', 'guess').expect(401);
      await tryLogin('NOBODY@certkeeper.test', 'guess').expect(429);
    });

    it('resets the account’s count on a success', async () => {
      const user = await createUser(t, 'viewer');
      for (let attempt = 0; attempt < 9; attempt += 1) await tryLogin(user.email, 'wrong').expect(401);
      await login(t, user.email, user.password);
      for (let attempt = 0; attempt < 9; attempt += 1) await tryLogin(user.email, 'wrong').expect(401);
      await login(t, user.email, user.password);
    });

    it('limit the current-password check of a password change as well', async () => {
      const user = await createUser(t, 'viewer');
      const change = (currentPassword: string) =>
        t.http.put('/api/v1/me').set(bearer(user.token)).send({ currentPassword, password: 'another-password-1' });
      for (let attempt = 0; attempt < 10; attempt += 1) await change('wrong').expect(400);
      const refused = await change(user.password).expect(429);
      expect(refused.headers['retry-after']).toBeDefined();
      await tryLogin(user.email, user.password).expect(429);
      await me(user.token).expect(200);
    });
  });

  describe('the throttle itself (real PostgreSQL, a counting stand-in for the password check)', () => {
    let throttle: LoginThrottle;
    let checks: number;
    const counting = (answer: boolean) => () => {
      checks += 1;
      return Promise.resolve(answer);
    };
    beforeEach(() => {
      throttle = t.app.get(LoginThrottle);
      checks = 0;
    });

    it('runs at most ten checks for fifty guesses sent at once', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, () => throttle.guard({ account: 'parallel@example.test', address: '192.0.2.50' }, counting(false))),
      );
      expect(checks).toBe(10);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(40);
    });

    it('locks an address after a hundred failures, without locking other addresses, and counts no refused attempt', async () => {
      const address = '198.51.100.7';
      for (let account = 0; account < 10; account += 1) {
        for (let attempt = 0; attempt < 10; attempt += 1) {
          await throttle.guard({ account: `spray-${account}@example.test`, address }, counting(false));
        }
      }
      expect(checks).toBe(100);
      await expect(throttle.guard({ account: 'fresh@example.test', address }, counting(true))).rejects.toMatchObject({ status: 429 });
      expect(checks).toBe(100);
      // Another address, same account name: only that pair's own count matters (none yet).
      await expect(throttle.guard({ account: 'fresh@example.test', address: '198.51.100.8' }, counting(true))).resolves.toBe(true);
      // The locked address refuses every account; the same account from another address, nine failures in, still signs in.
      for (let attempt = 0; attempt < 9; attempt += 1) {
        await throttle.guard({ account: 'victim@example.test', address: '203.0.113.1' }, counting(false));
      }
      await expect(throttle.guard({ account: 'victim@example.test', address }, counting(true))).rejects.toMatchObject({ status: 429 });
      await expect(throttle.guard({ account: 'victim@example.test', address: '203.0.113.1' }, counting(true))).resolves.toBe(true);
      const pairs = await t.app
        .get(DataSource)
        .query<{ key: string; attempts: number }[]>(
          `SELECT key, attempts FROM login_throttle WHERE key LIKE 'account:%/fresh@example.test'`,
        );
      expect(pairs).toEqual([{ key: `account:${address}/fresh@example.test`, attempts: 0 }]);
    });

    it('purges windows that have passed, and sessions past their expiry', async () => {
      await throttle.guard({ account: 'purge@example.test', address: '192.0.2.99' }, counting(false));
      const user = await createUser(t, 'viewer');
      t.clock.advance(13 * 60 * MINUTE);
      const purged = await t.app.get(SignInHousekeeping).purge();
      expect(purged.failureWindows).toBeGreaterThanOrEqual(2);
      expect(purged.sessions).toBeGreaterThanOrEqual(1);
      const remaining = await t.app
        .get(DataSource)
        .query<{ n: number }[]>('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [user.id]);
      expect(remaining[0].n).toBe(0);
      admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
      await me(admin).expect(200);
    });
  });

  describe('API keys', () => {
    it('cannot mint a key that outlives the key minting it', async () => {
      const user = await createUser(t, 'viewer');
      const expiresAt = new Date(t.clock.now().getTime() + 24 * 60 * MINUTE);
      const parent = (
        (await t.http.post('/api/v1/me/api-keys').set(bearer(user.token)).send({ name: 'parent', expiresAt }).expect(201)).body as {
          key: string;
        }
      ).key;

      const inherited = (await t.http.post('/api/v1/me/api-keys').set(bearer(parent)).send({ name: 'child' }).expect(201)).body as {
        expiresAt: string;
      };
      expect(inherited.expiresAt).toBe(expiresAt.toISOString());
      const later = new Date(expiresAt.getTime() + MINUTE).toISOString();
      const refused = await t.http.post('/api/v1/me/api-keys').set(bearer(parent)).send({ name: 'child', expiresAt: later }).expect(400);
      expect(refused.text).toContain('an API key cannot mint a key that outlives itself');
      const earlier = new Date(expiresAt.getTime() - MINUTE).toISOString();
      await t.http.post('/api/v1/me/api-keys').set(bearer(parent)).send({ name: 'child', expiresAt: earlier }).expect(201);
      // A session may mint a key without expiry, as before.
      expect(
        (
          (await t.http.post('/api/v1/me/api-keys').set(bearer(user.token)).send({ name: 'forever' }).expect(201)).body as {
            expiresAt: unknown;
          }
        ).expiresAt,
      ).toBeNull();
    });
  });

  describe('audit entries', () => {
    it('record user and API-key changes without secrets', async () => {
      const created = (
        await t.http
          .post('/api/v1/users')
          .set(bearer(admin))
          .send({ email: 'audited@certkeeper.test', role: 'viewer', password: 'audited-password-1' })
          .expect(201)
      ).body as { id: string };
      expect(await auditOf('user:create', created.id)).toEqual([
        expect.objectContaining({ actor: ADMIN_EMAIL, details: { email: 'audited@certkeeper.test', role: 'viewer', passwordSet: true } }),
      ]);

      await t.http.put(`/api/v1/users/${created.id}`).set(bearer(admin)).send({ disabled: true }).expect(200);
      expect((await auditOf('user:update', created.id))[0].details).toEqual({ disabled: true, sessionsEnded: 0, apiKeysRevoked: 0 });
      await t.http.put(`/api/v1/users/${created.id}`).set(bearer(admin)).send({ disabled: false }).expect(200);

      const token = await login(t, 'audited@certkeeper.test', 'audited-password-1');
      const key = (await t.http.post('/api/v1/me/api-keys').set(bearer(token)).send({ name: 'audited' }).expect(201)).body as {
        id: string;
        key: string;
        keyId: string;
      };
      const [createdKey] = await auditOf('apikey:create', key.id);
      expect(createdKey).toMatchObject({
        actor: 'audited@certkeeper.test',
        details: { name: 'audited', keyId: key.keyId, mintedWith: 'session' },
      });
      expect(apiKeySecret(key)).toHaveLength(43);
      expect(JSON.stringify(createdKey)).not.toContain(apiKeySecret(key));
      await t.http.delete(`/api/v1/me/api-keys/${key.id}`).set(bearer(token)).expect(204);
      expect(await auditOf('apikey:delete', key.id)).toHaveLength(1);

      await t.http.delete(`/api/v1/users/${created.id}`).set(bearer(admin)).expect(204);
      expect(await auditOf('user:delete', created.id)).toEqual([
        expect.objectContaining({ actor: ADMIN_EMAIL, details: { email: 'audited@certkeeper.test' } }),
      ]);
    });
  });

  describe('the client address', () => {
    const failedAddresses = async (app: TestApp, forwardedFor: string) => {
      await app.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', forwardedFor)
        .send({ email: 'x@example.test', password: 'x' })
        .expect(401);
      const rows = await app.app.get(DataSource).query<{ key: string }[]>(`SELECT key FROM login_throttle WHERE key LIKE 'address:%'`);
      return rows.map((row) => row.key);
    };

    it('is the peer’s, whatever X-Forwarded-For says, unless TRUST_PROXY names the proxy', async () => {
      expect(await failedAddresses(t, '203.0.113.9')).not.toContain('address:203.0.113.9');
      const behindProxy = await createTestApp({ trustProxy: ['loopback'] });
      try {
        expect(await failedAddresses(behindProxy, '203.0.113.9')).toEqual(['address:203.0.113.9']);
      } finally {
        await behindProxy.close();
      }
    });
  });
});
