import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Runs `work` while a dedicated connection holds the session-level advisory lock `key`, waiting
 * first for any other session (another replica) that holds it.
 */
export function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  return onDedicatedConnection(dataSource, async (lockHolder) => {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [key]);
    return releasingAfter(lockHolder, key, work);
  });
}

/** Like withAdvisoryLock, but null at once, without running `work`, while another session holds the lock. */
export function withAdvisoryTryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T | null> {
  return onDedicatedConnection(dataSource, async (lockHolder) => {
    const [{ locked }] = (await lockHolder.query('SELECT pg_try_advisory_lock($1) AS locked', [key])) as { locked: boolean }[];
    return locked ? releasingAfter(lockHolder, key, work) : null;
  });
}

async function onDedicatedConnection<T>(dataSource: DataSource, use: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    return await use(runner);
  } finally {
    await runner.release();
  }
}

async function releasingAfter<T>(lockHolder: QueryRunner, key: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    // A failed unlock means the connection is gone, and the lock with it.
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
  }
}
