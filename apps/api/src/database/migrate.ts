import type { DataSource } from 'typeorm';

// An arbitrary constant shared by every replica: whoever holds it migrates, the others wait.
const MIGRATION_LOCK_KEY = 7_341_101;

/** Runs pending migrations under a PostgreSQL advisory lock, so replicas starting together are safe. */
export async function runMigrationsUnderLock(dataSource: DataSource): Promise<string[]> {
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockHolder.release();
  }
}
