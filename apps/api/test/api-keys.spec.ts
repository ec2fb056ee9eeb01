import { apiKeySecret, bearer, createTestApp, createUser, login, type TestApp } from './support/test-app';
import { HOUR } from './support/fake-clock';

interface CreatedKey {
  id: string;
  name: string;
  keyId: string;
  key: string;
  expiresAt: string | null;
}

describe('API keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('are created once with the raw key, listed without it, used, and deleted', async () => {
    const owner = await createUser(t, 'operator');
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'deploy pipeline' }).expect(201);
    const key = created.body as CreatedKey;
    expect(key.key).toMatch(/^stx_p_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(key.key.startsWith(`stx_p_${key.keyId}_`)).toBe(true);
    expect(key.expiresAt).toBeNull();

    const me = await t.http.get('/api/v1/me').set(bearer(key.key)).expect(200);
    expect((me.body as { id: string }).id).toBe(owner.id);

    const list = await t.http.get('/api/v1/me/api-keys').set(bearer(owner.token)).expect(200);
    const rows = list.body as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: key.id, name: 'deploy pipeline', keyId: key.keyId });
    expect(rows[0].lastUsedAt).not.toBeNull();
    expect(apiKeySecret(key)).toHaveLength(43);
    expect(JSON.stringify(rows)).not.toContain(apiKeySecret(key));

    await t.http.delete(`/api/v1/me/api-keys/${key.id}`).set(bearer(owner.token)).expect(204);
    await t.http.get('/api/v1/me').set(bearer(key.key)).expect(401);
    await t.http.delete(`/api/v1/me/api-keys/${key.id}`).set(bearer(owner.token)).expect(404);
  });

  it('stores only a hash of the secret', async () => {
    const owner = await createUser(t, 'viewer');
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'x' }).expect(201);
    const key = created.body as CreatedKey;
    const secret = key.key.slice(`stx_p_${key.keyId}_`.length);
    const { DataSource } = await import('typeorm');
    const rows = await t.app.get(DataSource).query<Record<string, unknown>[]>('SELECT * FROM api_keys WHERE id = $1', [key.id]);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it('stop working when they expire', async () => {
    const owner = await createUser(t, 'viewer');
    const expiresAt = new Date(t.clock.now().getTime() + 1 * HOUR).toISOString();
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'short', expiresAt }).expect(201);
    const key = created.body as CreatedKey;
    expect(key.expiresAt).toBe(expiresAt);
    await t.http.get('/api/v1/me').set(bearer(key.key)).expect(200);
    t.clock.advance(1 * HOUR);
    await t.http.get('/api/v1/me').set(bearer(key.key)).expect(401);
  });

  it('refuses an expiry in the past and bad fields with 400', async () => {
    const owner = await createUser(t, 'viewer');
    const past = new Date(t.clock.now().getTime() - HOUR).toISOString();
    const response = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'old', expiresAt: past }).expect(400);
    expect(response.text).toContain('expiresAt must be in the future');
    await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: '' }).expect(400);
    await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'x', expiresAt: 'tomorrow' }).expect(400);
    await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'x', scope: 'all' }).expect(400);
  });

  it("act with their owner's role: a viewer's key is refused on edit routes with 403", async () => {
    const viewer = await createUser(t, 'viewer');
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(viewer.token)).send({ name: 'read-only' }).expect(201);
    const key = (created.body as CreatedKey).key;
    const response = await t.http.post('/api/v1/users').set(bearer(key)).send({ email: 'new@certkeeper.test', role: 'viewer' }).expect(403);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toContain('lacks the users:edit permission');
    await t.http.get('/api/v1/users').set(bearer(key)).expect(403);
  });

  it('cannot be deleted by another user', async () => {
    const owner = await createUser(t, 'viewer');
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'mine' }).expect(201);
    const key = created.body as CreatedKey;
    await t.http
      .delete(`/api/v1/me/api-keys/${key.id}`)
      .set(bearer(await login(t)))
      .expect(404);
    await t.http.get('/api/v1/me').set(bearer(key.key)).expect(200);
  });

  it('cannot be guessed from the key id alone', async () => {
    const owner = await createUser(t, 'viewer');
    const created = await t.http.post('/api/v1/me/api-keys').set(bearer(owner.token)).send({ name: 'k' }).expect(201);
    const key = created.body as CreatedKey;
    await t.http
      .get('/api/v1/me')
      .set(bearer(`stx_p_${key.keyId}_${'A'.repeat(43)}`))
      .expect(401);
  });
});
