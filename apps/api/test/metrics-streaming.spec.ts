import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { poolOf } from '../src/database/pool';
import { metricsScrapeLimits } from '../src/modules/metrics/metrics.controller';
import { eventually } from './support/eventually';
import { startPausedDownload } from './support/paused-download';
import { bearer, createTestApp, createUser, type TestApp } from './support/test-app';

/**
 * A scrape larger than the socket buffers between the API and its client: it is streamed from the
 * database as the client reads (docs/api-contract.md section 12), so a client that is slow, leaves,
 * or stops reading is what decides how long the scrape holds its database connection.
 */
describe('GET /metrics over a large inventory', () => {
  // Two endpoint families of 50,000 lines each, scanned hosts: about 15 MB of text.
  const ROWS = 50_000;
  let t: TestApp;
  let operator: string;
  let dataSource: DataSource;
  let pool: Pool;
  const checkedOut = () => pool.totalCount - pool.idleCount;
  const allBack = () => eventually(checkedOut, (count) => count === 0, 10_000);

  /** Server backends of this test database running a metrics family query (not this one asking). */
  const scrapeBackends = () =>
    dataSource.query<{ pid: number }[]>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%endpoint_name="%' AND state <> 'idle'`,
    );

  /** A scrape whose client stops reading after the first chunk. */
  const startScrape = () => startPausedDownload(`${t.baseUrl}/metrics`, bearer(operator));

  beforeAll(async () => {
    t = await createTestApp();
    operator = (await createUser(t, 'operator')).token;
    dataSource = t.app.get(DataSource);
    pool = poolOf(dataSource);
    await dataSource.query(
      `INSERT INTO endpoints (name, type, dns_name, port, search_text, last_scanned_at, error_since)
       SELECT 'bulk-' || lpad(g::text, 6, '0'), 'host', 'bulk-' || g || '.example.test', 443, 'bulk-' || g,
              now() - g * interval '1 second', CASE WHEN g % 10 = 0 THEN now() END
         FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
  });
  afterAll(() => t.close());

  it('streams every series of every family whole, and gives the connection back', async () => {
    const response = await t.http.get('/metrics').set(bearer(operator)).expect(200);
    const families = new Map(parsePrometheusTextFormat(response.text).map((family) => [family.name, family.metrics]));
    const lastScans = families.get('certkeeper_endpoint_last_scan_timestamp_seconds') ?? [];
    const outcomes = families.get('certkeeper_endpoint_scan_success') ?? [];

    expect(lastScans).toHaveLength(ROWS);
    expect(new Set(lastScans.map((sample) => sample.labels?.endpoint_name)).size).toBe(ROWS);
    expect(outcomes.filter((sample) => sample.value === '0')).toHaveLength(ROWS / 10);
    expect(outcomes.filter((sample) => sample.value === '1')).toHaveLength(ROWS - ROWS / 10);
    expect(families.get('certkeeper_certificate_not_after_seconds')).toEqual([]);
    expect(families.has('process_cpu_user_seconds_total')).toBe(true);
    expect(await allBack()).toBe(0);
  });

  it('stops reading the database and gives the connection back when the client leaves mid-scrape', async () => {
    const { req } = await startScrape();
    // Held while the client is behind.
    expect(await scrapeBackends()).toHaveLength(1);
    expect(checkedOut()).toBeGreaterThanOrEqual(1);
    req.destroy();

    expect(await allBack()).toBe(0);
    expect(await scrapeBackends()).toEqual([]);
    await t.http.get('/metrics').set(bearer(operator)).expect(200);
  });

  it('cuts off a client that stopped reading once the stall limit passes, and gives the connection back', async () => {
    const saved = metricsScrapeLimits.stallMs;
    metricsScrapeLimits.stallMs = 300;
    try {
      const { res, outcome } = await startScrape();
      expect(await allBack()).toBe(0);
      expect(await scrapeBackends()).toEqual([]);
      res.resume();
      expect(await outcome).not.toBe('end');
    } finally {
      metricsScrapeLimits.stallMs = saved;
    }
  });

  it('cuts the response, rather than ending it as if whole, when the database fails mid-scrape', async () => {
    const { res, outcome } = await startScrape();
    const [backend] = await scrapeBackends();
    await dataSource.query('SELECT pg_terminate_backend($1)', [backend.pid]);
    res.resume();

    expect(await outcome).not.toBe('end');
    expect(await allBack()).toBe(0);
    await t.http.get('/metrics').set(bearer(operator)).expect(200);
  });

  it('refuses more concurrent scrapes than it allows with 429 and Retry-After', async () => {
    const running = await Promise.all(Array.from({ length: metricsScrapeLimits.concurrent }, () => startScrape()));
    const refused = await t.http.get('/metrics').set(bearer(operator)).expect(429);
    expect(refused.headers['retry-after']).toBe('5');

    for (const { req } of running) req.destroy();
    expect(await allBack()).toBe(0);
    await t.http.get('/metrics').set(bearer(operator)).expect(200);
  });
});
