import 'reflect-metadata';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../apps/api/src/database/data-source-options';
import { startEmbeddedPostgres } from '../../apps/api/src/database/embedded-postgres';
import { seedInventory } from './inventory-seed';

/** Prints EXPLAIN ANALYZE of the queries behind the inventory reads, on the benchmark's data. */
async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-explain-'));
  await chmod(directory, 0o755);
  const database = await startEmbeddedPostgres({ directory: join(directory, 'cluster'), password: 'x', databaseName: 'certkeeper' });
  try {
    const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await dataSource.runMigrations();
    await dataSource.query(`INSERT INTO scanners (name, is_default, token_hash) VALUES ('default', true, 'x')`);
    await dataSource.destroy();
    await seedInventory(database.url, 100_000);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    for (const sql of (process.env.QUERIES ?? '').split(';;').filter(Boolean)) {
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
      process.stdout.write(`\n${sql}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    }
    await client.end();
  } finally {
    await database.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

void main();
