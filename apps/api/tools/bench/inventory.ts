import { recordFigure } from '@certkeeper/net/testing';
import { withSeededApi } from './inventory-seed';
import { type ApiProcess, measure, median, memoryOf } from './lib';

/**
 * Issue 3's figures: 100,000 endpoints and 100,000 certificates with links, then p50/p95 latency
 * (one client) and throughput (8 clients) of the list, expiring, active and search reads, the
 * time of 10,000-row bulk imports, and the API's peak resident memory. Medians, no assertions.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BULK_ROWS = 10_000;
const BULK_RUNS = 3;

async function bulkImport(api: ApiProcess, token: string, run: number): Promise<number> {
  const rows = Array.from({ length: BULK_ROWS }, (_, i) => ({
    name: `bulk-${run}-${i}`,
    dnsName: `bulk-${run}-${i}.example.net`,
    tags: ['env:bulk'],
  }));
  const begun = performance.now();
  const response = await fetch(`${api.baseUrl}/api/v1/endpoints/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(rows),
    signal: AbortSignal.timeout(120_000),
  });
  const body = (await response.json()) as { created: number };
  if (body.created !== BULK_ROWS) throw new Error(`bulk created ${body.created}`);
  return performance.now() - begun;
}

async function main(): Promise<void> {
  await withSeededApi('inventory', ROWS, async (api, token) => {
    // [label, path, p95 target in ms, throughput target in req/s (the first row only)]
    const reads: [string, string, number, number?][] = [
      ['GET /endpoints?limit=50', '/api/v1/endpoints?limit=50', 15, 400],
      ['GET /endpoints?limit=50 (offset 50000)', '/api/v1/endpoints?limit=50&offset=50000', 15],
      ['GET /endpoints?limit=50&type=host&tag=env:prod', '/api/v1/endpoints?limit=50&type=host&tag=env:prod', 15],
      ['GET /endpoints?limit=50&q=host-4242', '/api/v1/endpoints?limit=50&q=host-4242', 15],
      // The list's other orders and its expiry filter, held to the list's target.
      ['GET /endpoints?limit=50&sort=daysRemaining', '/api/v1/endpoints?limit=50&sort=daysRemaining', 15],
      ['GET /endpoints?limit=50&sort=-daysRemaining (offset 50000)', '/api/v1/endpoints?limit=50&sort=-daysRemaining&offset=50000', 15],
      ['GET /endpoints?limit=50&expires_within=30', '/api/v1/endpoints?limit=50&expires_within=30&sort=daysRemaining', 15],
      ['GET /certificates/expiring?days=30', '/api/v1/certificates/expiring?days=30', 25],
      ['GET /certificates/active?limit=500', '/api/v1/certificates/active?limit=500', 40],
      ['GET /search?q=host-4242', '/api/v1/search?q=host-4242', 15],
    ];
    process.stdout.write(
      `\nCertkeeper inventory benchmark (${ROWS} endpoints/certificates; latency from 200 sequential requests, throughput from 8 clients)\n`,
    );
    for (const [label, path, target, perSecondTarget] of reads) {
      const result = await measure(`${api.baseUrl}${path}`, token);
      const throughputTarget = perSecondTarget === undefined ? '' : ` (target >= ${perSecondTarget})`;
      process.stdout.write(
        `  ${label.padEnd(50)} p50 ${result.p50.toFixed(1).padStart(6)} ms   p95 ${result.p95.toFixed(1).padStart(6)} ms (target <= ${target})   ${result.perSecond.toFixed(0).padStart(5)} req/s${throughputTarget}\n`,
      );
      recordFigure({
        row: `${label}, ${ROWS} rows, p95${perSecondTarget === undefined ? '' : ' / throughput (8 clients)'}`,
        measured: `${result.p95.toFixed(1)} ms${perSecondTarget === undefined ? '' : ` / ${result.perSecond.toFixed(0)} req/s`}`,
        target: `<= ${target} ms${perSecondTarget === undefined ? '' : ` / >= ${perSecondTarget} req/s`}`,
        met: result.p95 <= target && result.perSecond >= (perSecondTarget ?? 0),
      });
    }

    const beforeBulk = await memoryOf(api.pid);
    process.stdout.write(`  ${'API peak resident memory after the reads'.padEnd(50)} ${beforeBulk.peak.toFixed(0)} MB\n`);
    const bulkTimes: number[] = [];
    for (let run = 0; run < BULK_RUNS; run += 1) bulkTimes.push(await bulkImport(api, token, run));
    process.stdout.write(
      `  ${`POST /endpoints/bulk (${BULK_ROWS} rows)`.padEnd(50)} median ${(median(bulkTimes) / 1000).toFixed(2)} s (target <= 10 s)   [${bulkTimes.map((t) => (t / 1000).toFixed(2)).join(', ')}]\n`,
    );
    const memory = await memoryOf(api.pid);
    process.stdout.write(
      `  ${'API peak resident memory (VmHWM)'.padEnd(50)} ${memory.peak.toFixed(0)} MB (target <= 250), now ${memory.rss.toFixed(0)} MB\n`,
    );
    recordFigure({
      row: 'API peak memory, inventory benchmark',
      measured: `${memory.peak.toFixed(0)} MB`,
      target: '<= 250 MB',
      met: memory.peak <= 250,
    });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
