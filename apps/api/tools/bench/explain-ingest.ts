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
 * Prints EXPLAIN (ANALYZE, BUFFERS) of each statement a batch of steady-state host results runs
 * (the agent cycle's ingest: lock, scan history and endpoint outcome, link sightings, presented chains), as the
 * repositories send them, on `BENCH_ENDPOINTS` (default 2,000) endpoints with a current link each;
 * a batch of 1,000 re-sightings of the same leaf, rolled back after each run. `RUNS` (default 5)
 * runs are timed; the plans printed are the last run's.
 */
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 2000);
const BATCH = Math.min(1000, ENDPOINTS);
const RUNS = Number(process.env.RUNS ?? 5);

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
    const presentedChains = links.map((link) => ({ endpointId: link.endpointId, fingerprints: [link.fingerprint] }));
    // The steady state: every endpoint's chain was presented before.
    await dataSource.transaction((transaction) => findings.savePresentedChains(presentedChains, transaction));
    // The policy's default window, without the settings service behind it.
    const superseding = { window: () => Promise.resolve({ now: new Date(), afterHours: 24 }) } as SupersedingPolicy;
    const linksService = new LinksService(
      new LinksRepository(dataSource),
      new RotationsService(new RotationsRepository(dataSource)),
      new RenewalsRepository(dataSource),
      superseding,
    );

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
      await protocol.recordRuns(
        links.map((link) => ({
          resultId: randomUUID(),
          endpointId: link.endpointId,
          scannerId,
          scannedAt: new Date(),
          success: true,
          error: null,
          resolvedIp: '127.0.0.1',
          fingerprint: link.fingerprint,
          tlsVersion: 'TLSv1.3',
          chainComplete: true,
        })),
        explaining,
      );
      await linksService.applySightings(
        links.map((link) => ({
          endpointId: link.endpointId,
          certUse: 'tls' as const,
          fingerprints: [link.fingerprint],
          mode: 'replace' as const,
        })),
        explaining,
      );
      await findings.savePresentedChains(presentedChains, explaining);
      await runner.rollbackTransaction();
      await runner.release();
    }
    process.stdout.write(plans.join('\n'));
    process.stdout.write(`\n\nExecution time per statement over ${RUNS} runs of ${BATCH} results (median ms):\n`);
    for (const [name, times] of totals) {
      const sorted = [...times].sort((a, b) => a - b);
      process.stdout.write(`  ${sorted[Math.floor(sorted.length / 2)].toFixed(1).padStart(8)}  ${name}…\n`);
    }
    await dataSource.destroy();
  });
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
