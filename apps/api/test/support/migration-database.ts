import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';
import { databaseUrl, withAdminClient } from './test-database';

/**
 * A throw-away database for the spec of one migration, made before the spec's tests and dropped
 * after: `use` runs work on it with the schema as it was just before `migration`, then `upgrade`
 * with every migration applied from there (answering which ran, in order). Each closes its
 * connection when its work ends.
 */
export function databaseBeforeMigration(prefix: string, migration: (typeof MIGRATIONS)[number]) {
  const name = `${prefix}_${Date.now()}`;
  const options = () => dataSourceOptions(databaseUrl(name));
  beforeAll(() => withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`)));
  afterAll(() => withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));

  const using = async <T>(dataSource: DataSource, work: (dataSource: DataSource) => Promise<T>): Promise<T> => {
    await dataSource.initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  };
  return {
    use: <T>(work: (before: DataSource) => Promise<T>): Promise<T> =>
      using(new DataSource({ ...options(), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(migration)) }), async (before) => {
        await before.runMigrations();
        return work(before);
      }),
    upgrade: <T>(work: (after: DataSource, applied: string[]) => Promise<T>): Promise<T> =>
      using(new DataSource(options()), async (after) =>
        work(
          after,
          (await after.runMigrations()).map((applied) => applied.name),
        ),
      ),
  };
}
