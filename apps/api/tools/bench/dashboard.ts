import { Client } from 'pg';
import { withSeededApi } from './inventory-seed';
import { type ApiProcess, login, measure } from './lib';

/**
 * The dashboard figure (docs/performance.md): GET /dashboard at 100,000 endpoints and 100,000 certificates with
 * links (the inventory seed), p50/p95 from sequential requests (target p95 <= 50 ms) and
 * throughput from 8 clients, for scope=all and for viewers subscribed to one tag (a tenth, and a
 * third, of the endpoints). Panels are not empty: 1% of the endpoints are failing and the scans are spread over
 * the last four days, so about half the scanned endpoints are stale at the default 48 hours.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const NARROW_TAG = 'team:3';
const BROAD_TAG = 'env:prod';

async function request<T>(api: ApiProcess, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** Scan times over the last four days and errors on 1% of the scanned endpoints. */
async function seedScans(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `UPDATE endpoints
          SET last_scanned_at = now() - (abs(hashtext(id::text)) % 5760) * interval '1 minute',
              error_since = CASE WHEN abs(hashtext(name)) % 100 = 0 THEN now() - (abs(hashtext(name)) % 720) * interval '1 minute' END,
              last_scan_error = CASE WHEN abs(hashtext(name)) % 100 = 0 THEN 'connect ECONNREFUSED' END
        WHERE type <> 'manual'`,
    );
    await client.query('VACUUM (ANALYZE) endpoints');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

interface Dashboard {
  counts: { endpoints: number; stale: number; withErrors: number; activeCertificates: number; expired: number };
  errorEndpoints: unknown[];
  expiringCertificates: unknown[];
  staleScans: unknown[];
}

async function main(): Promise<void> {
  await withSeededApi(
    'dashboard',
    ROWS,
    async (api, admin, databaseUrl) => {
      // Viewers subscribed to a tenth (team:3) and to a third (env:prod) of the endpoints. Subscriptions
      // are set directly: this bench measures the dashboard, not the settings API.
      const viewer = async (email: string, tags: string[]) => {
        const password = 'viewer-password-1';
        const { id } = await request<{ id: string }>(api, 'POST', '/api/v1/users', admin, { email, role: 'viewer', password });
        const client = new Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query('UPDATE users SET tag_subscriptions = $2 WHERE id = $1', [id, tags]);
        await client.end();
        return login(api.baseUrl, email, password);
      };
      const narrow = await viewer('team@example.com', [NARROW_TAG]);
      const broad = await viewer('env@example.com', [BROAD_TAG]);

      const runs: [string, string, string][] = [
        ['GET /dashboard?scope=all (admin)', '/api/v1/dashboard?scope=all', admin],
        [`GET /dashboard (viewer subscribed to ${NARROW_TAG})`, '/api/v1/dashboard', narrow],
        ['GET /dashboard?scope=all&limit=100 (viewer)', '/api/v1/dashboard?scope=all&limit=100', narrow],
        [`GET /dashboard (viewer subscribed to ${BROAD_TAG})`, '/api/v1/dashboard', broad],
      ];
      process.stdout.write(
        `\nCertkeeper dashboard benchmark (${ROWS} endpoints/certificates; latency from 200 sequential requests, throughput from 8 clients)\n`,
      );
      for (const [label, path, token] of runs) {
        const sample = await request<Dashboard>(api, 'GET', path, token);
        const result = await measure(`${api.baseUrl}${path}`, token);
        process.stdout.write(
          `  ${label.padEnd(50)} p50 ${result.p50.toFixed(1).padStart(6)} ms   p95 ${result.p95.toFixed(1).padStart(6)} ms (target <= 50)   ` +
            `${result.perSecond.toFixed(0).padStart(5)} req/s\n` +
            `  ${''.padEnd(50)} ${sample.counts.endpoints} endpoints, ${sample.counts.withErrors} failing, ${sample.counts.stale} stale, ` +
            `${sample.counts.activeCertificates} current links (${sample.counts.expired} expired); panels ` +
            `${sample.errorEndpoints.length}/${sample.expiringCertificates.length}/${sample.staleScans.length} rows\n`,
        );
      }
    },
    seedScans,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
