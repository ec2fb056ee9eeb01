import { recordFigure } from '@certkeeper/net/testing';
import { Client } from 'pg';
import { importInventoryEndpoints, seedInventory, settleInventory, withApiOnFreshDatabase } from './inventory-seed';
import { type ApiProcess, type LoadResult, measure, median, memoryOf } from './lib';

/**
 * The inventory figures (docs/performance.md): 100,000 endpoints and 100,000 certificates with links (and 10,000
 * renewals not deployed), then p50/p95 latency
 * (one client) and throughput (8 clients) of the list, expiring, active and search reads, the
 * time of 10,000-row bulk imports, and the API's peak resident memory. Medians, no assertions.
 *
 * The reads are measured twice: right after the endpoints were imported through the bulk route
 * (what a user sees, before autovacuum's next visit), and settled, after VACUUM (ANALYZE).
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BULK_ROWS = 10_000;
// A quick look on a busy machine: BENCH_ROWS=10000 BENCH_READS=supersed BENCH_BULK_RUNS=0.
const BULK_RUNS = Number(process.env.BENCH_BULK_RUNS ?? 3);
const READS_MATCHING = process.env.BENCH_READS ?? '';

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

// [label, path, p95 target in ms, throughput target in req/s (the first row only)]
const ALL_READS: [string, string, number, number?][] = [
  ['GET /endpoints?limit=50', '/api/v1/endpoints?limit=50', 15, 400],
  ['GET /endpoints?limit=50 (offset 50000)', '/api/v1/endpoints?limit=50&offset=50000', 15],
  ['GET /endpoints?limit=50&type=host&tag=env:prod', '/api/v1/endpoints?limit=50&type=host&tag=env:prod', 15],
  ['GET /endpoints?limit=50&q=host-4242', '/api/v1/endpoints?limit=50&q=host-4242', 15],
  // The list's other orders and its expiry filter, held to the list's target.
  ['GET /endpoints?limit=50&sort=daysRemaining', '/api/v1/endpoints?limit=50&sort=daysRemaining', 15],
  ['GET /endpoints?limit=50&sort=-daysRemaining (offset 50000)', '/api/v1/endpoints?limit=50&sort=-daysRemaining&offset=50000', 15],
  ['GET /endpoints?limit=50&expires_within=30', '/api/v1/endpoints?limit=50&expires_within=30&sort=daysRemaining', 15],
  ['GET /certificates/expiring?days=30', '/api/v1/certificates/expiring?days=30', 25],
  // Each row with its supersededBy: one in ten certificates has a renewal not deployed (inventory-seed.ts).
  ['GET /certificates/active?limit=500 (with supersededBy)', '/api/v1/certificates/active?limit=500', 40],
  ['GET /endpoints?limit=50&superseded=true', '/api/v1/endpoints?limit=50&superseded=true', 40],
  // Its counts include renewalNotDeployed, the endpoints serving a superseded certificate; held to bench:dashboard's target.
  ['GET /dashboard?scope=all (counts superseded endpoints)', '/api/v1/dashboard?scope=all', 50],
  ['GET /search?q=host-4242', '/api/v1/search?q=host-4242', 15],
];

const READS = ALL_READS.filter(([label]) => label.includes(READS_MATCHING));

async function measureReads(api: ApiProcess, token: string): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const [, path] of READS) results.push(await measure(`${api.baseUrl}${path}`, token));
  return results;
}

const figures = (result: LoadResult, perSecondTarget?: number) =>
  `p50 ${result.p50.toFixed(1).padStart(6)} ms  p95 ${result.p95.toFixed(1).padStart(6)} ms${
    perSecondTarget === undefined ? '' : `  ${result.perSecond.toFixed(0).padStart(4)} req/s`
  }`;

/** How far the endpoints table's statistics and visibility map are behind its rows, and whether autovacuum came by. */
async function endpointsTableState(databaseUrl: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const [row] = (
      await client.query<{ changed: string; visible: number; pages: number; autovacuumed: boolean }>(
        `SELECT s.n_mod_since_analyze AS changed, c.relallvisible AS visible, c.relpages AS pages,
                s.last_autoanalyze IS NOT NULL OR s.last_autovacuum IS NOT NULL AS autovacuumed
           FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'endpoints'`,
      )
    ).rows;
    return `${row.changed} rows changed since its last analyse, ${row.visible} of ${row.pages} pages known all-visible, ${row.autovacuumed ? 'autovacuum has been' : 'autovacuum not yet'}`;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  await withApiOnFreshDatabase('inventory', async (api, token, databaseUrl) => {
    // Requests of BULK_ROWS, like the timed imports below: the peak memory row stays one of reads and 10,000-row imports.
    const importMs = await importInventoryEndpoints(api, token, ROWS, BULK_ROWS);
    await seedInventory(databaseUrl, ROWS, { endpointsImported: true });
    process.stdout.write(
      `imported ${ROWS} endpoints through POST /endpoints/bulk (${Math.ceil(ROWS / BULK_ROWS)} requests of ${BULK_ROWS}) in ${(importMs / 1000).toFixed(1)} s, then certificates and links\n`,
    );
    // Right after the import: autovacuum visits once a minute, and these reads take about 40 s.
    process.stdout.write(`endpoints table before the reads: ${await endpointsTableState(databaseUrl)}\n`);
    const afterImport = await measureReads(api, token);
    process.stdout.write(`endpoints table after the reads: ${await endpointsTableState(databaseUrl)}\n`);
    await settleInventory(databaseUrl);
    const settled = await measureReads(api, token);

    process.stdout.write(
      `\nCertkeeper inventory benchmark (${ROWS} endpoints/certificates; latency from 200 sequential requests, throughput from 8 clients)\n` +
        `  ${''.padEnd(50)} ${'right after the bulk import'.padEnd(42)} ${'settled (after VACUUM ANALYZE)'.padEnd(42)} target\n`,
    );
    for (const [index, [label, , target, perSecondTarget]] of READS.entries()) {
      const throughputTarget = perSecondTarget === undefined ? '' : ` / >= ${perSecondTarget} req/s`;
      process.stdout.write(
        `  ${label.padEnd(50)} ${figures(afterImport[index], perSecondTarget).padEnd(42)} ${figures(settled[index], perSecondTarget).padEnd(42)} p95 <= ${target} ms${throughputTarget}\n`,
      );
      for (const [result, phase] of [
        [afterImport[index], ', right after a bulk import'],
        [settled[index], ''],
      ] as const) {
        recordFigure({
          row: `${label}, ${ROWS} rows${phase}, p95${perSecondTarget === undefined ? '' : ' / throughput (8 clients)'}`,
          measured: `${result.p95.toFixed(1)} ms${perSecondTarget === undefined ? '' : ` / ${result.perSecond.toFixed(0)} req/s`}`,
          target: `<= ${target} ms${perSecondTarget === undefined ? '' : ` / >= ${perSecondTarget} req/s`}`,
          met: result.p95 <= target && result.perSecond >= (perSecondTarget ?? 0),
        });
      }
    }

    const beforeBulk = await memoryOf(api.pid);
    process.stdout.write(`  ${'API peak resident memory after the reads'.padEnd(50)} ${beforeBulk.peak.toFixed(0)} MB\n`);
    const bulkTimes: number[] = [];
    for (let run = 0; run < BULK_RUNS; run += 1) bulkTimes.push(await bulkImport(api, token, run));
    if (BULK_RUNS > 0)
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
