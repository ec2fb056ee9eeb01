import type { DataSource, QueryRunner } from 'typeorm';

/** The lock stayed with another session (another replica's run) for longer than the caller would wait. */
export class AdvisoryLockWaitExceeded extends Error {
  constructor(readonly maxWaitMs: number) {
    super(`the lock was still held elsewhere after ${Math.round(maxWaitMs / 1000)} s`);
  }
}

/**
 * Runs `work` while a dedicated connection holds the session-level advisory lock `key`, waiting
 * first, at most `maxWaitMs`, for any other session (another replica) that holds it.
 *
 * The wait has its own deadline instead of the pool's 30 s statement timeout: another replica's
 * run may rightly take longer than any single query should (a big first alert run, a slow SMTP
 * relay), and a wait cut short by the query deadline was an error where there was none.
 *
 * @throws AdvisoryLockWaitExceeded when the lock is still held elsewhere after `maxWaitMs`.
 */
export function withAdvisoryLock<T>(
  dataSource: DataSource,
  key: number,
  work: (lockHolder: QueryRunner) => Promise<T>,
  { maxWaitMs }: { maxWaitMs: number },
): Promise<T> {
  return onDedicatedConnection(dataSource, async (lockHolder) => {
    await waitForLock(lockHolder, key, maxWaitMs);
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

/**
 * Which of `keys` some session of this database holds now (any replica's run). pg_locks shows a
 * lock taken above on a bigint key as its high and low 32 bits (classid, objid) with objsubid 1;
 * every key of advisory-lock-keys.ts is below 2^32, so classid is 0 and objid the key.
 */
export async function heldAdvisoryLocks(dataSource: DataSource, keys: readonly number[]): Promise<Set<number>> {
  const rows = await dataSource.query<{ key: string }[]>(
    `SELECT objid::text AS key
       FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND classid = 0 AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND objid = ANY($1::oid[])`,
    [keys],
  );
  return new Set(rows.map((row) => Number(row.key)));
}

// SQLSTATE of a statement cancelled by statement_timeout.
const QUERY_CANCELED = '57014';

async function waitForLock(lockHolder: QueryRunner, key: number, maxWaitMs: number): Promise<void> {
  // Only the lock holder's session waits under the longer deadline; it goes back to the pool's
  // own (RESET) before `work` runs, and `work` runs its queries on other pooled connections.
  await lockHolder.query(`SELECT set_config('statement_timeout', $1, false)`, [String(Math.max(1, Math.round(maxWaitMs)))]);
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [key]);
  } catch (error) {
    if ((error as { code?: string }).code === QUERY_CANCELED) throw new AdvisoryLockWaitExceeded(maxWaitMs);
    throw error;
  } finally {
    await lockHolder.query('RESET statement_timeout');
  }
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

async function releasingAfter<T>(lockHolder: QueryRunner, key: number, work: (lockHolder: QueryRunner) => Promise<T>): Promise<T> {
  try {
    return await work(lockHolder);
  } finally {
    // A failed unlock means the connection is gone, and the lock with it.
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
  }
}
