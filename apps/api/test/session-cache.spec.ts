import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from '../src/database/notifications';
import { eventually } from './support/eventually';
import { cutOffListener, databaseUrl } from './support/test-database';
import { bearer, createTestApp, createUser, login, type TestApp } from './support/test-app';

/**
 * The session check of every request is answered from memory for a few seconds
 * (SessionUserCache, docs/performance.md "Sessions"); each case shows a revocation still taking
 * effect at once, whoever makes it, and that the cache is really used.
 */
describe('cached session checks', () => {
  let t: TestApp;
  let other: Client;
  let sessionLookups: number;

  const me = (token: string) => t.http.get('/api/v1/me').set(bearer(token));
  /** Requests until the answer is `status`, for at most 3 s: a notification takes milliseconds, not a request. */
  const answersEventually = async (request: () => Promise<{ status: number }>, status: number) =>
    expect((await eventually(request, (response) => response.status === status)).status).toBe(status);
  const listening = () => t.app.get(DatabaseNotifications).listening;
  const sessionOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;

  beforeAll(async () => {
    t = await createTestApp();
    other = new Client({ connectionString: databaseUrl(t.databaseName) });
    await other.connect();
    const dataSource = t.app.get(DataSource);
    const query = dataSource.query.bind(dataSource);
    jest.spyOn(dataSource, 'query').mockImplementation((text: string, ...rest: unknown[]) => {
      if (text.includes('FROM users u JOIN sessions s')) sessionLookups += 1;
      return (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
    });
    await eventually(listening, (value) => value);
  });

  afterAll(async () => {
    await other.end();
    await t.close();
  });

  beforeEach(() => {
    sessionLookups = 0;
  });

  it('checks a session once, then answers from memory', async () => {
    const token = await login(t);
    await me(token).expect(200);
    await me(token).expect(200);
    await me(token).expect(200);
    expect(sessionLookups).toBe(1);
  });

  it('refuses a token at the very next request after its logout on this process', async () => {
    const token = await login(t);
    await me(token).expect(200);
    await t.http.post('/api/v1/auth/logout').set(bearer(token)).expect(204);
    await me(token).expect(401);
  });

  it('refuses a token soon after its session is deleted behind the API (another replica, psql)', async () => {
    const token = await login(t);
    await me(token).expect(200);
    await other.query('DELETE FROM sessions WHERE id = $1', [sessionOf(token)]);
    await answersEventually(() => me(token), 401);
  });

  it("applies a role change or a disabled account made behind the API's back", async () => {
    const user = await createUser(t, 'operator');
    const token = await login(t, user.email, user.password);
    await t.http.get('/api/v1/users').set(bearer(token)).expect(403);
    await other.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [user.id]);
    await answersEventually(() => t.http.get('/api/v1/users').set(bearer(token)), 200);
    await other.query('UPDATE users SET disabled = true WHERE id = $1', [user.id]);
    await answersEventually(() => me(token), 401);
  });

  it('caches nothing while it cannot hear notifications, and caches again once it can', async () => {
    const token = await login(t);
    await me(token).expect(200);
    await cutOffListener(t.databaseName);
    await eventually(listening, (value) => !value);
    sessionLookups = 0;
    await me(token).expect(200);
    await me(token).expect(200);
    expect(sessionLookups).toBe(2);
    // Deaf, a deletion behind its back still counts at the next request.
    await other.query('DELETE FROM sessions WHERE id = $1', [sessionOf(token)]);
    await me(token).expect(401);

    await eventually(listening, (value) => value);
    const again = await login(t);
    sessionLookups = 0;
    await me(again).expect(200);
    await me(again).expect(200);
    expect(sessionLookups).toBe(1);
  });
});
