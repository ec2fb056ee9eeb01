import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { MIGRATIONS } from '../src/database/migrations';
import { runMigrationsUnderLock } from '../src/database/migrate';
import { databaseUrl, withAdminClient } from './support/test-database';

describe('migrations', () => {
  const name = `migrations_${Date.now()}`;
  let dataSource: DataSource;

  beforeAll(async () => {
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    dataSource = await new DataSource(dataSourceOptions(databaseUrl(name))).initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  });

  it('apply on an empty database, once, even when two processes race', async () => {
    const second = await new DataSource(dataSourceOptions(databaseUrl(name))).initialize();
    try {
      const [a, b] = await Promise.all([runMigrationsUnderLock(dataSource), runMigrationsUnderLock(second)]);
      expect([...a, ...b].sort()).toEqual(MIGRATIONS.map((m) => m.name).sort());
    } finally {
      await second.destroy();
    }
    expect(await runMigrationsUnderLock(dataSource)).toEqual([]);
  });

  it('leave nothing for the entities to change: the schema matches the code', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('name their files <timestamp>-<PascalName> and their classes to match', () => {
    for (const migration of MIGRATIONS) {
      expect(migration.name).toMatch(/^[A-Z][A-Za-z]+\d{13}$/);
    }
  });
});
