import 'reflect-metadata';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrationsUnderLock } from '../../src/database/migrate';
import { TEMPLATE_DATABASE } from './test-database';

/**
 * Starts one throw-away PostgreSQL cluster for the whole run (durability off: it is deleted
 * afterwards) and migrates the template database every test app is cloned from.
 */
export default async function globalSetup(): Promise<void> {
  process.env.TZ = 'UTC';
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-test-'));
  // PostgreSQL runs as the `postgres` user when the tests run as root.
  await chmod(directory, 0o755);
  const database = await startEmbeddedPostgres({
    directory: join(directory, 'cluster'),
    password: 'certkeeper-test',
    databaseName: TEMPLATE_DATABASE,
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
  });
  const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
  await runMigrationsUnderLock(dataSource);
  await dataSource.destroy();

  const admin = new URL(database.url);
  admin.pathname = '/postgres';
  process.env.CERTKEEPER_TEST_ADMIN_URL = admin.toString();
  (globalThis as Record<string, unknown>).__certkeeperTestDatabase = { stop: database.stop, directory };
}
