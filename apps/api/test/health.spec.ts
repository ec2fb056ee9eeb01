import { cutOffDatabase } from './support/test-database';
import { createTestApp, type TestApp } from './support/test-app';

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
});
