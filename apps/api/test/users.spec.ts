import {
  createTestApp,
  createUser,
  bearer,
  login,
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  type TestApp,
  createSignedInTestApp,
} from './support/test-app';

interface UserBody {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  notify: boolean;
  createdAt: string;
}

describe('users', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  it('are created, read, listed, updated and deleted by an administrator', async () => {
    const created = await t.http
      .post('/api/v1/users')
      .set(bearer(admin))
      .send({ email: '  Alice@Example.COM ', name: 'Alice', role: 'operator', password: 'alice-password', notify: false })
      .expect(201);
    const alice = created.body as UserBody;
    expect(alice).toEqual({
      id: expect.any(String),
      email: 'alice@example.com',
      name: 'Alice',
      role: 'operator',
      disabled: false,
      notify: false,
      createdAt: expect.stringMatching(/Z$/),
      localSignIn: true,
      oidcLinked: false,
      lastSignInAt: null,
    });
    expect(JSON.stringify(alice)).not.toMatch(/password/i);

    // Each sign-in is recorded, by the application's clock.
    await t.http.post('/api/v1/auth/login').send({ email: 'alice@example.com', password: 'alice-password' }).expect(200);
    expect((await t.http.get(`/api/v1/users/${alice.id}`).set(bearer(admin)).expect(200)).body).toEqual({
      ...alice,
      lastSignInAt: t.clock.now().toISOString(),
    });
    t.clock.advance(90_000);
    await t.http.post('/api/v1/auth/login').send({ email: 'alice@example.com', password: 'alice-password' }).expect(200);
    expect((await t.http.get(`/api/v1/users/${alice.id}`).set(bearer(admin)).expect(200)).body).toMatchObject({
      lastSignInAt: t.clock.now().toISOString(),
    });
    const list = (await t.http.get('/api/v1/users').set(bearer(admin)).expect(200)).body as UserBody[];
    expect(list.map((u) => u.email)).toEqual(expect.arrayContaining([ADMIN_EMAIL, 'alice@example.com']));

    const updated = await t.http.put(`/api/v1/users/${alice.id}`).set(bearer(admin)).send({ notify: true, name: 'Alice B.' }).expect(200);
    expect(updated.body).toMatchObject({ notify: true, name: 'Alice B.', role: 'operator', email: 'alice@example.com' });

    await t.http.put(`/api/v1/users/${alice.id}`).set(bearer(admin)).send({ password: 'new-alice-password' }).expect(200);
    await t.http.post('/api/v1/auth/login').send({ email: 'alice@example.com', password: 'alice-password' }).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email: 'alice@example.com', password: 'new-alice-password' }).expect(200);

    await t.http.delete(`/api/v1/users/${alice.id}`).set(bearer(admin)).expect(204);
    await t.http.get(`/api/v1/users/${alice.id}`).set(bearer(admin)).expect(404);
    await t.http.delete(`/api/v1/users/${alice.id}`).set(bearer(admin)).expect(404);
  });

  it('refuses a duplicate e-mail, in any case, with 409', async () => {
    await t.http.post('/api/v1/users').set(bearer(admin)).send({ email: 'dup@example.com', role: 'viewer' }).expect(201);
    const response = await t.http.post('/api/v1/users').set(bearer(admin)).send({ email: 'DUP@example.com', role: 'admin' }).expect(409);
    expect(response.text).toContain('already exists');
    const other = await t.http.post('/api/v1/users').set(bearer(admin)).send({ email: 'other@example.com', role: 'viewer' }).expect(201);
    await t.http
      .put(`/api/v1/users/${(other.body as UserBody).id}`)
      .set(bearer(admin))
      .send({ email: 'dup@example.com' })
      .expect(409);
  });

  it('creates users without a password who cannot sign in with one', async () => {
    const created = await t.http
      .post('/api/v1/users')
      .set(bearer(admin))
      .send({ email: 'sso-only@example.com', role: 'viewer' })
      .expect(201);
    expect(created.body).toMatchObject({ localSignIn: false, oidcLinked: false });
    await t.http.post('/api/v1/auth/login').send({ email: 'sso-only@example.com', password: '' }).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email: 'sso-only@example.com', password: 'anything-at-all' }).expect(401);
  });

  it.each([
    [{ email: 'not-an-email', role: 'viewer' }, 'email must be an e-mail address'],
    [{ email: 'x@example.com', role: 'root' }, 'role must be one of the following values: viewer, operator, admin'],
    [{ email: 'x@example.com', role: 'viewer', password: 'short' }, 'password must be longer than or equal to 8 characters'],
    [{ email: 'x@example.com', role: 'viewer', notify: 'yes' }, 'notify must be a boolean value'],
    [{ email: 'x@example.com', role: 'viewer', isAdmin: true }, 'property isAdmin should not exist'],
  ])('rejects %j with 400', async (body, message) => {
    const response = await t.http.post('/api/v1/users').set(bearer(admin)).send(body).expect(400);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toContain(message);
  });

  it('answers 400 for an id that is not a UUID and 404 for an unknown one', async () => {
    await t.http.get('/api/v1/users/42').set(bearer(admin)).expect(400);
    await t.http.get('/api/v1/users/00000000-0000-4000-8000-000000000000').set(bearer(admin)).expect(404);
    await t.http.put('/api/v1/users/00000000-0000-4000-8000-000000000000').set(bearer(admin)).send({ notify: false }).expect(404);
  });

  describe('the last enabled administrator', () => {
    it('cannot be deleted, demoted or disabled (409), but can once another admin exists', async () => {
      const t2 = await createTestApp();
      try {
        const token = await login(t2);
        const me = (await t2.http.get('/api/v1/me').set(bearer(token)).expect(200)).body as UserBody;
        await t2.http.delete(`/api/v1/users/${me.id}`).set(bearer(token)).expect(409);
        await t2.http.put(`/api/v1/users/${me.id}`).set(bearer(token)).send({ role: 'operator' }).expect(409);
        const response = await t2.http.put(`/api/v1/users/${me.id}`).set(bearer(token)).send({ disabled: true }).expect(409);
        expect(response.text).toContain('last enabled administrator');

        // A disabled administrator does not count.
        const disabledAdmin = await createUser(t2, 'admin');
        await t2.http.put(`/api/v1/users/${disabledAdmin.id}`).set(bearer(token)).send({ disabled: true }).expect(200);
        await t2.http.put(`/api/v1/users/${me.id}`).set(bearer(token)).send({ role: 'operator' }).expect(409);

        const second = await createUser(t2, 'admin');
        await t2.http.put(`/api/v1/users/${me.id}`).set(bearer(token)).send({ role: 'operator' }).expect(200);
        await t2.http.delete(`/api/v1/users/${second.id}`).set(bearer(second.token)).expect(409);
      } finally {
        await t2.close();
      }
    });

    it('survives two concurrent demotions: exactly one succeeds', async () => {
      const t2 = await createTestApp();
      try {
        const token = await login(t2);
        const me = (await t2.http.get('/api/v1/me').set(bearer(token)).expect(200)).body as UserBody;
        const second = await createUser(t2, 'admin');
        const results = await Promise.all([
          t2.http.put(`/api/v1/users/${me.id}`).set(bearer(token)).send({ role: 'viewer' }),
          t2.http.put(`/api/v1/users/${second.id}`).set(bearer(token)).send({ role: 'viewer' }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      } finally {
        await t2.close();
      }
    });
  });

  describe('/me', () => {
    it('returns the caller with subscriptions and calendar state, and updates own profile', async () => {
      const viewer = await createUser(t, 'viewer');
      const me = await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200);
      expect(me.body).toMatchObject({
        id: viewer.id,
        email: viewer.email,
        role: 'viewer',
        notify: true,
        tagSubscriptions: [],
        calendarFeedEnabled: false,
      });

      const updated = await t.http
        .put('/api/v1/me')
        .set(bearer(viewer.token))
        .send({ name: 'Renamed', notify: false, calendarToken: null })
        .expect(200);
      expect(updated.body).toMatchObject({ name: 'Renamed', notify: false, role: 'viewer' });
    });

    it('cannot change its own role or disabled flag', async () => {
      const viewer = await createUser(t, 'viewer');
      await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ role: 'admin' }).expect(400);
      await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ disabled: true }).expect(400);
      await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ calendarToken: 'abc' }).expect(400);
    });

    it('changes the password only with the current one', async () => {
      const viewer = await createUser(t, 'viewer');
      await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ password: 'brand-new-password' }).expect(400);
      await t.http
        .put('/api/v1/me')
        .set(bearer(viewer.token))
        .send({ password: 'brand-new-password', currentPassword: 'wrong' })
        .expect(400);
      await t.http
        .put('/api/v1/me')
        .set(bearer(viewer.token))
        .send({ password: 'brand-new-password', currentPassword: viewer.password })
        .expect(200);
      await t.http.post('/api/v1/auth/login').send({ email: viewer.email, password: 'brand-new-password' }).expect(200);
    });

    it('cannot change its own e-mail address, which only an administrator changes', async () => {
      const viewer = await createUser(t, 'viewer');
      for (const email of [ADMIN_EMAIL, `renamed-${viewer.email}`, viewer.email]) {
        const refused = await t.http.put('/api/v1/me').set(bearer(viewer.token)).send({ email, name: 'Renamed' }).expect(400);
        expect(refused.text.trim()).toBe(
          'email cannot be changed here: an administrator changes e-mail addresses (PUT /api/v1/users/{id}), since single sign-on links accounts by them',
        );
      }
      // Nothing changed, the name sent along included.
      const me = (await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200)).body as { email: string; name: string };
      expect(me).toMatchObject({ email: viewer.email, name: expect.stringMatching(/^viewer \d+$/) as unknown });
      await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
    });
  });
});
