import { cutOffDatabase } from './support/test-database';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

/** The calendar URL is the feed's credential: no log line may carry it, the failure log included. */
describe('secrets in the log', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps the calendar token out of the error log when a feed request fails', async () => {
    const admin = await login(t);
    const { token } = (await t.http.post('/api/v1/me/calendar-token').set(bearer(admin)).expect(200)).body as { token: string };
    const restore = await cutOffDatabase(t.databaseName);
    try {
      const response = await t.http.get(`/api/v1/calendar/u/${token}/certkeeper.ics`);
      expect(response.status).toBe(503);
    } finally {
      await restore();
    }

    // Whether the request meets a new connection the closed database refuses (SQLSTATE 55000) or a
    // pooled one the cut-off terminated (57P01), it is an outage: a 503 and one warning line.
    const warnings = t.logs.filter((line) => line.level === 'warn');
    expect(warnings.some((line) => String(line.msg).includes('/calendar/u/[redacted]'))).toBe(true);
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });
});
