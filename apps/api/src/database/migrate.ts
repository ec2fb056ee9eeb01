import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { MIGRATION_LOCK_KEY } from './advisory-lock-keys';

/** Runs pending migrations under a PostgreSQL advisory lock, so replicas starting together are safe. */
export async function runMigrationsUnderLock(dataSource: DataSource): Promise<string[]> {
  const started = performance.now();
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    new Logger('Migrations').debug(`Applied ${applied.length} pending migrations in ${Math.round(performance.now() - started)} ms.`);
    return applied.map((migration) => migration.name);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockHolder.release();
  }
}
