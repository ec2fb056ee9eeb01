import { cutOffDatabase } from './support/test-database';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

describe('GET /api/v1/health', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is public and answers 200 while the database is reachable', async () => {
    const response = await t.http.get('/api/v1/health').expect(200);
    expect(response.body).toEqual({ status: 'ok', database: 'up' });
  });

  it('answers 503 in plain text while the database is down, and recovers after', async () => {
    const restore = await cutOffDatabase(t.databaseName);
    try {
      const response = await t.http.get('/api/v1/health').expect(503);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.text).toContain('Database unreachable.');
    } finally {
      await restore();
    }
    await t.http.get('/api/v1/health').expect(200);
  });

  it('has every route that needs the database answer 503 with Retry-After while it refuses connections', async () => {
    const admin = await login(t);
    const restore = await cutOffDatabase(t.databaseName);
    try {
      // The first request may still meet a pooled connection the cut-off ended (57P01); the later
      // ones open new connections, which the closed database refuses (55000). The certificate pages
      // read on the driver's pool directly (database/pool.ts), the endpoint list through TypeORM.
      for (const path of ['/api/v1/endpoints', '/api/v1/certificates/expiring', '/api/v1/endpoints', '/api/v1/certificates/active']) {
        const response = await t.http.get(path).set(bearer(admin));
        expect([path, response.status, response.headers['retry-after'], response.text]).toEqual([
          path,
          503,
          '5',
          expect.stringContaining('The database is unreachable; try again shortly.'),
        ]);
      }
    } finally {
      await restore();
    }
    await t.http.get('/api/v1/endpoints').set(bearer(admin)).expect(200);
    expect(t.logs.filter((line) => line.level === 'error')).toEqual([]);
  });
});
