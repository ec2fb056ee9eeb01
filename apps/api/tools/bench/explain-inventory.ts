import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { seedInventory } from './inventory-seed';
import { withBenchDatabase } from './lib';

/**
 * Prints EXPLAIN ANALYZE of the queries behind the inventory reads, on the benchmark's data:
 * QUERIES, separated by `;;`, after SETUP's statements (same form; e.g. seeding findings, then
 * VACUUM ANALYZE) ran as they are.
 */
async function main(): Promise<void> {
  await withBenchDatabase('explain', async (database) => {
    const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await dataSource.runMigrations();
    await dataSource.query(`INSERT INTO scanners (name, is_default, token_hash) VALUES ('default', true, 'x')`);
    await dataSource.destroy();
    await seedInventory(database.url, 100_000);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    for (const sql of (process.env.SETUP ?? '').split(';;').filter(Boolean)) await client.query(sql);
    for (const sql of (process.env.QUERIES ?? '').split(';;').filter(Boolean)) {
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
      process.stdout.write(`\n${sql}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    }
    await client.end();
  });
}

void main();
