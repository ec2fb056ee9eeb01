import { randomUUID, scryptSync } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import { createScanner, createTestApp, createUser, bearer, login, ADMIN_EMAIL, ADMIN_PASSWORD, type TestApp } from './support/test-app';
import { HOUR, SECOND } from './support/fake-clock';

describe('authentication', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('POST /api/v1/auth/login', () => {
    it('returns a JWT, its expiry and the user for valid credentials', async () => {
      const response = await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
      const body = response.body as { token: string; expiresAt: string; user: Record<string, unknown> };
      expect(body.token.split('.')).toHaveLength(3);
      expect(new Date(body.expiresAt).getTime()).toBe(Math.floor(t.clock.now().getTime() / 1000) * 1000 + 12 * HOUR);
      expect(body.user).toEqual({ id: expect.any(String), email: ADMIN_EMAIL, name: 'Administrator', role: 'admin' });
      await t.http.get('/api/v1/me').set(bearer(body.token)).expect(200);
    });

    it('accepts the e-mail in any case', async () => {
      await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD }).expect(200);
    });

    it('gives the same 401 for a wrong password, an unknown e-mail and a disabled account', async () => {
      const disabled = await createUser(t, 'viewer');
      const adminToken = await login(t);
      await t.http.put(`/api/v1/users/${disabled.id}`).set(bearer(adminToken)).send({ disabled: true }).expect(200);

      const attempts = [
        { email: ADMIN_EMAIL, password: 'wrong-password' },
        { email: 'nobody@certkeeper.test', password: ADMIN_PASSWORD },
        { email: disabled.email, password: disabled.password },
      ];
      const bodies = [];
      for (const attempt of attempts) {
        const response = await t.http.post('/api/v1/auth/login').send(attempt).expect(401);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        bodies.push(response.text);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(bodies[0]).toContain('Invalid e-mail or password');
    });

    it('rejects a body without credentials with 400', async () => {
      const response = await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL }).expect(400);
      expect(response.text).toContain('password must be a string');
    });
  });

  describe('password hashes', () => {
    const storedHash = async (id: string) =>
      (await t.app.get(DataSource).query<{ password_hash: string }[]>('SELECT password_hash FROM users WHERE id = $1', [id]))[0]
        .password_hash;

    it('are made at N=2^15, p=3 and a hash from before is re-hashed at the next successful sign-in only', async () => {
      const user = await createUser(t, 'viewer');
      expect(await storedHash(user.id)).toMatch(/^scrypt\$32768\$8\$3\$/);

      // As stored before the cost was raised.
      const salt = Buffer.from('legacy-salt-0123');
      const legacy = ['scrypt', 16384, 8, 1, salt.toString('base64'), scryptSync(user.password, salt, 32, { N: 16384 }).toString('base64')];
      await t.app.get(DataSource).query('UPDATE users SET password_hash = $1 WHERE id = $2', [legacy.join('$'), user.id]);

      await t.http.post('/api/v1/auth/login').send({ email: user.email, password: 'wrong-password' }).expect(401);
      expect(await storedHash(user.id)).toBe(legacy.join('$'));
      await t.http.post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(200);
      const upgraded = await storedHash(user.id);
      expect(upgraded).toMatch(/^scrypt\$32768\$8\$3\$/);
      await t.http.post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(200);
      expect(await storedHash(user.id)).toBe(upgraded);
    });
  });

  describe('JWT', () => {
    it('stops working once its lifetime has passed', async () => {
      const token = await login(t);
      t.clock.advance(12 * HOUR - SECOND);
      await t.http.get('/api/v1/me').set(bearer(token)).expect(200);
      t.clock.advance(2 * SECOND);
      const response = await t.http.get('/api/v1/me').set(bearer(token)).expect(401);
      expect(response.text).toContain('Invalid, expired or revoked token');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses a token signed with another secret, carrying no expiry, or naming no live session', async () => {
      const token = await login(t);
      const { sid } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid: string };
      const me = await t.http.get('/api/v1/me').set(bearer(token)).expect(200);
      const claims = { sub: (me.body as { id: string }).id, sid, iss: 'certkeeper', aud: 'certkeeper-api' };
      const now = Math.floor(t.clock.now().getTime() / 1000);
      const forged = sign({ ...claims, iat: now, exp: now + 3600 }, 'some-other-secret-of-enough-length!!');
      await t.http.get('/api/v1/me').set(bearer(forged)).expect(401);
      const eternal = sign({ ...claims, iat: now }, t.config.jwtSecret);
      await t.http.get('/api/v1/me').set(bearer(eternal)).expect(401);
      // Signed with the real secret, but for a session that never existed, or none at all.
      const noSession = sign({ ...claims, sid: randomUUID(), iat: now, exp: now + 3600 }, t.config.jwtSecret);
      await t.http.get('/api/v1/me').set(bearer(noSession)).expect(401);
      const { sid: _omitted, ...sessionless } = claims;
      await t.http
        .get('/api/v1/me')
        .set(bearer(sign({ ...sessionless, iat: now, exp: now + 3600 }, t.config.jwtSecret)))
        .expect(401);
      // The same claims with the live session: the refusals above were for what they changed.
      await t.http
        .get('/api/v1/me')
        .set(bearer(sign({ ...claims, iat: now, exp: now + 3600 }, t.config.jwtSecret)))
        .expect(200);
    });
  });

  describe('missing and malformed tokens', () => {
    it.each([
      ['no header', undefined],
      ['an empty bearer', 'Bearer '],
      ['another scheme', 'Basic YWRtaW46YWRtaW4='],
      ['a garbage JWT', 'Bearer not.a.jwt'],
      ['a token with spaces', 'Bearer a b'],
      ['an unknown API key', 'Bearer stx_p_0123456789abcdef_secret'],
      ['a malformed API key', 'Bearer stx_p_nounderscore'],
      ['an unknown scanner token', 'Bearer stx_s_unknown'],
    ])('answers 401 for %s', async (_label, header) => {
      const req = t.http.get('/api/v1/me');
      if (header !== undefined) req.set('Authorization', header);
      const response = await req.expect(401);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
    });
  });

  describe('scanner tokens', () => {
    it('are refused with 403 on user routes', async () => {
      const scanner = await createScanner(t);
      for (const path of ['/api/v1/me', '/api/v1/users', '/api/v1/me/api-keys']) {
        const response = await t.http.get(path).set(bearer(scanner.token)).expect(403);
        expect(response.text).toContain('Scanner tokens are accepted only on /api/v1/scanner routes');
      }
    });
  });

  describe('disabling a user', () => {
    it('revokes their JWT and API keys at once; enabling them again brings back the keys, not the sessions', async () => {
      const operator = await createUser(t, 'operator');
      const key = await t.http.post('/api/v1/me/api-keys').set(bearer(operator.token)).send({ name: 'ci' }).expect(201);
      const apiKey = (key.body as { key: string }).key;
      await t.http.get('/api/v1/me').set(bearer(operator.token)).expect(200);
      await t.http.get('/api/v1/me').set(bearer(apiKey)).expect(200);

      const adminToken = await login(t);
      await t.http.put(`/api/v1/users/${operator.id}`).set(bearer(adminToken)).send({ disabled: true }).expect(200);

      await t.http.get('/api/v1/me').set(bearer(operator.token)).expect(401);
      await t.http.get('/api/v1/me').set(bearer(apiKey)).expect(401);

      await t.http.put(`/api/v1/users/${operator.id}`).set(bearer(adminToken)).send({ disabled: false }).expect(200);
      await t.http.get('/api/v1/me').set(bearer(operator.token)).expect(401);
      await t.http.get('/api/v1/me').set(bearer(apiKey)).expect(200);
      await t.http
        .get('/api/v1/me')
        .set(bearer(await login(t, operator.email, operator.password)))
        .expect(200);
    });

    it('demoting a user takes effect on their existing token', async () => {
      const operator = await createUser(t, 'operator');
      const adminToken = await login(t);
      const body = { email: `made-by-operator-${Date.now()}@certkeeper.test`, role: 'viewer' };
      // An operator may not manage users at all; after promotion to admin the same token may.
      await t.http.get('/api/v1/users').set(bearer(operator.token)).expect(403);
      await t.http.put(`/api/v1/users/${operator.id}`).set(bearer(adminToken)).send({ role: 'admin' }).expect(200);
      await t.http.post('/api/v1/users').set(bearer(operator.token)).send(body).expect(201);
      await t.http.put(`/api/v1/users/${operator.id}`).set(bearer(adminToken)).send({ role: 'viewer' }).expect(200);
      await t.http.get('/api/v1/users').set(bearer(operator.token)).expect(403);
    });
  });
});
