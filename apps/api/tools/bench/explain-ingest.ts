import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { FindingsRepository } from '../../src/modules/findings/findings.repository';
import { LinksService } from '../../src/modules/links/links.service';
import { LinksRepository } from '../../src/modules/links/links.repository';
import { RenewalsRepository } from '../../src/modules/renewals/renewals.repository';
import type { SupersedingPolicy } from '../../src/modules/renewals/superseding-policy';
import { RotationsRepository } from '../../src/modules/rotations/rotations.repository';
import { RotationsService } from '../../src/modules/rotations/rotations.service';
import { ScannerProtocolRepository } from '../../src/modules/scanner-protocol/scanner-protocol.repository';
import { seedInventory } from './inventory-seed';
import { withBenchDatabase } from './lib';

/**
 * Prints EXPLAIN (ANALYZE, BUFFERS) of each statement a batch of host results runs (the agent
 * cycle's ingest: lock, scan history and endpoint outcome, link sightings, presented chains, the
 * findings' inputs), as the repositories send them, on `BENCH_ENDPOINTS` (default 2,000) endpoints
 * with a current link each; a batch of up to 1,000 results, rolled back after each run. As in
 * bench:agent, the endpoints serve one shared certificate, seen in a few scans before; two
 * batches: `steady` presents it again, `rotating` a new one (every result a rotation). `RUNS` (default 5) runs of each are timed; the plans printed
 * are the last run's. `BATCHES=rotating` prints only that one.
 */
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 2000);
const BATCH = Math.min(1000, ENDPOINTS);
const RUNS = Number(process.env.RUNS ?? 5);
const BATCHES = (process.env.BATCHES ?? 'steady,rotating').split(',');
/** The scans that saw the shared certificate before the rotating batch's: bench:agent's first and steady cycles. */
const EARLIER_SCANS = 4;

async function main(): Promise<void> {
  await withBenchDatabase('explain-ingest', async (database) => {
    const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await dataSource.runMigrations();
    await dataSource.query(`INSERT INTO scanners (name, is_default, token_hash) VALUES ('default', true, 'x')`);
    await seedInventory(database.url, ENDPOINTS);
    const [{ id: scannerId }] = await dataSource.query<{ id: string }[]>(`SELECT id FROM scanners`);
    const links = await dataSource.query<{ endpointId: string; fingerprint: string }[]>(
      `SELECT l.endpoint_id AS "endpointId", l.fingerprint FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
        WHERE e.type = 'host' ORDER BY e.id LIMIT $1`,
      [BATCH],
    );
    const protocol = new ScannerProtocolRepository(dataSource);
    const findings = new FindingsRepository(dataSource);
    // The policy's default window, without the settings service behind it.
    const superseding = { window: () => Promise.resolve({ now: new Date(), afterHours: 24 }) } as SupersedingPolicy;
    const linksService = new LinksService(
      new LinksRepository(dataSource),
      new RotationsService(new RotationsRepository(dataSource)),
      new RenewalsRepository(dataSource),
      superseding,
    );

    const shared = await shareOneCertificate(dataSource, links, async (fingerprint) => {
      for (let scan = 0; scan < EARLIER_SCANS; scan += 1) {
        await dataSource.transaction(async (transaction) => {
          await protocol.recordRuns(historyRows(links, scannerId, fingerprint), transaction);
          await linksService.applySightings(sightings(links, fingerprint), transaction);
          await findings.savePresentedChains(chains(links, fingerprint), transaction);
        });
      }
    });

    for (const batch of BATCHES) {
      const presented = batch === 'rotating' ? shared.newer : shared.older;
      const totals = new Map<string, number[]>();
      let plans: string[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        plans = [];
        const runner = dataSource.createQueryRunner();
        await runner.connect();
        await runner.startTransaction();
        const explaining = explainingManager(runner.manager, (sql, ms, plan) => {
          const name = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
          totals.set(name, [...(totals.get(name) ?? []), ms]);
          plans.push(`\n${name}…  ${ms.toFixed(1)} ms\n${plan}`);
        });
        const ids = links.map((link) => link.endpointId);
        await protocol.lockEndpoints(ids, explaining);
        await protocol.recordRuns(historyRows(links, scannerId, presented), explaining);
        await linksService.applySightings(sightings(links, presented), explaining);
        await findings.savePresentedChains(chains(links, presented), explaining);
        // What recomputing the findings of the endpoints whose leaf changed reads.
        if (batch === 'rotating') await findings.loadInputs(ids, { now: new Date(), renewalInfo: true }, explaining);
        await runner.rollbackTransaction();
        await runner.release();
      }
      process.stdout.write(`\n\n=== ${batch} batch ===\n${plans.join('\n')}`);
      process.stdout.write(`\n\nExecution time per statement over ${RUNS} runs of ${BATCH} ${batch} results (median ms):\n`);
      let sum = 0;
      for (const [name, times] of totals) {
        const sorted = [...times].sort((a, b) => a - b);
        sum += sorted[Math.floor(sorted.length / 2)];
        process.stdout.write(`  ${sorted[Math.floor(sorted.length / 2)].toFixed(1).padStart(8)}  ${name}…\n`);
      }
      process.stdout.write(`  ${sum.toFixed(1).padStart(8)}  in all\n`);
    }
    await dataSource.destroy();
  });
}

type Link = { endpointId: string; fingerprint: string };

/** A successful scan of each endpoint presenting `fingerprint`. */
function historyRows(links: Link[], scannerId: string, fingerprint: string) {
  return links.map((link) => ({
    resultId: randomUUID(),
    endpointId: link.endpointId,
    scannerId,
    scannedAt: new Date(),
    success: true,
    error: null,
    resolvedIp: '127.0.0.1',
    fingerprint,
    tlsVersion: 'TLSv1.3',
    chainComplete: true,
  }));
}

function sightings(links: Link[], fingerprint: string) {
  return links.map((link) => ({
    endpointId: link.endpointId,
    certUse: 'tls' as const,
    fingerprints: [fingerprint],
    mode: 'replace' as const,
  }));
}

function chains(links: Link[], fingerprint: string) {
  return links.map((link) => ({ endpointId: link.endpointId, fingerprints: [fingerprint], complete: true }));
}

/**
 * Stores two copies of the first link's certificate, issued a day apart, and hands the older to
 * `serve` (which presents it on every endpoint, committed): the steady batch presents it again,
 * the rotating one the newer.
 */
async function shareOneCertificate(
  dataSource: DataSource,
  links: Link[],
  serve: (fingerprint: string) => Promise<void>,
): Promise<{ older: string; newer: string }> {
  const copy = (name: string, days: number) =>
    dataSource.query(
      `INSERT INTO certificates
       SELECT (jsonb_populate_record(c, jsonb_build_object(
                 'fingerprint', encode(sha256(convert_to($2, 'UTF8')), 'hex'), 'sha1_fingerprint', encode(sha256(convert_to('sha1-' || $2, 'UTF8')), 'hex'),
                 'serial_number', $2, 'not_before', c.not_before + make_interval(days => $3), 'created_at', now()))).*
         FROM certificates c WHERE c.fingerprint = $1`,
      [links[0].fingerprint, name, days],
    );
  await copy('shared-old', 1);
  await copy('shared-new', 2);
  const [older, newer] = await dataSource.query<{ fingerprint: string }[]>(
    `SELECT fingerprint FROM certificates WHERE serial_number IN ('shared-old', 'shared-new') ORDER BY not_before`,
  );
  await serve(older.fingerprint);
  return { older: older.fingerprint, newer: newer.fingerprint };
}

/**
 * The transaction, each statement first run under EXPLAIN ANALYZE in a savepoint rolled back at
 * once, then run for real so the caller gets its rows and the next statement sees its writes.
 */
function explainingManager(manager: EntityManager, report: (sql: string, ms: number, plan: string) => void): EntityManager {
  return new Proxy(manager, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return async (sql: string, parameters?: unknown[]) => {
        await target.query('SAVEPOINT explain');
        const rows = await target.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, parameters);
        await target.query('ROLLBACK TO SAVEPOINT explain');
        const plan = rows.map((row) => row['QUERY PLAN']);
        const time = Number(/Execution Time: ([\d.]+)/.exec(plan.join('\n'))?.[1] ?? NaN);
        report(sql, time, plan.join('\n'));
        return target.query<unknown>(sql, parameters);
      };
    },
  });
}

void main();
