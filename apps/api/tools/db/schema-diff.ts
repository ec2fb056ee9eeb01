import 'reflect-metadata';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';

/**
 * Prints the SQL that would bring a freshly migrated database in line with the entities: the
 * starting point of a new migration, to review and copy into `database/migrations`. Prints
 * nothing when the migrations already match (the migrations test asserts exactly that).
 */
async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-schema-'));
  await chmod(directory, 0o755);
  const database = await startEmbeddedPostgres({
    directory: join(directory, 'cluster'),
    password: 'schema',
    databaseName: 'schema',
    settings: { fsync: 'off' },
  });
  try {
    const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await dataSource.runMigrations();
    const pending = await dataSource.driver.createSchemaBuilder().log();
    for (const query of pending.upQueries) process.stdout.write(`${query.query};\n`);
    await dataSource.destroy();
  } finally {
    await database.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
