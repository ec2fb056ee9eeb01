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
      expect(response.status).toBeGreaterThanOrEqual(500);
    } finally {
      await restore();
    }

    // Which failure the request meets is a race, and both lines must be redacted: a new connection
    // the closed database refuses (SQLSTATE 55000, not classed as an outage) is a 500 and an error
    // line; a pooled connection the cut-off terminated (57P01) is a 503 outage and a warning.
    const failures = t.logs.filter((line) => line.level === 'error' || line.level === 'warn');
    expect(failures.some((line) => String(line.msg).includes('/calendar/u/[redacted]'))).toBe(true);
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });
});
