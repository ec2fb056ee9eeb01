import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withAdvisoryLock } from './advisory-lock';
import type { Transaction } from './transaction';

/**
 * A table is vacuumed and analysed once more rows changed since its last analyse or vacuum than
 * this many plus UPKEEP_TABLE_FRACTION of its rows: autovacuum's own insert rule, applied at once.
 */
export const UPKEEP_MIN_ROWS = 1000;
export const UPKEEP_TABLE_FRACTION = 0.2;

// How long the check waits for another replica's write under the table's write lock.
const LOCK_WAIT_MS = 30_000;

/**
 * Keeps a table's planner statistics and visibility map current right after large writes
 * (docs/performance.md, "After large writes"). Autovacuum visits each database only once per
 * autovacuum_naptime (a minute by default): until then a table just filled by an import has no
 * statistics, and the list's deep pages were planned as a sort of the whole table.
 */
@Injectable()
export class TableUpkeep {
  private readonly logger = new Logger('TableUpkeep');
  private forcedFlush?: Promise<boolean>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Called inside a write transaction, so that afterWrite sees it:
   * - its row counts reach the statistics system when it commits; a busy connection otherwise
   *   reports them up to ten seconds later. PostgreSQL 13 and 14 cannot be asked; they report
   *   within half a second.
   * - it commits synchronously even where the server commits asynchronously: until its commit
   *   record is flushed, its rows cannot be hinted as committed, and VACUUM leaves their pages
   *   out of the visibility map.
   */
  async beforeCommit(transaction: Transaction): Promise<void> {
    await transaction.query('SET LOCAL synchronous_commit = on');
    this.forcedFlush ??= transaction
      .query<{ available: boolean }[]>(`SELECT current_setting('server_version_num')::int >= 150000 AS available`)
      .then(([row]) => row.available);
    if (await this.forcedFlush) await transaction.query('SELECT pg_stat_force_next_flush()');
  }

  /**
   * Called after a write to `table` committed: runs `VACUUM (ANALYZE)` on it when the rows changed
   * since its last analyse or vacuum (by anyone, on any replica) pass the threshold above. The
   * check holds the table's write lock, so no write to it is half done elsewhere while it counts
   * and vacuums: PostgreSQL resets the counters when a vacuum ends, forgetting rows committed
   * during it. For the same reason it does not skip a table autovacuum is at (SKIP_LOCKED): that
   * vacuum may have begun before the write committed. Asking for the table's lock interrupts
   * autovacuum after deadlock_timeout (a second by default), and this vacuum covers every row.
   *
   * A failure is logged, not thrown: the write it follows has committed, and autovacuum still
   * comes by later.
   */
  async afterWrite(table: string, writeLockKey: number): Promise<void> {
    try {
      await withAdvisoryLock(
        this.dataSource,
        writeLockKey,
        // On the lock's own connection: a request waiting for the lock must not need a second one
        // from the pool, or many creates at once hold every connection while they wait.
        async (lockHolder) => {
          const [{ due }] = (await lockHolder.query(
            `SELECT greatest(pg_stat_get_mod_since_analyze(c.oid), pg_stat_get_ins_since_vacuum(c.oid)) > $2 + $3 * greatest(c.reltuples, 0) AS due
               FROM pg_class c WHERE c.oid = $1::regclass`,
            [table, UPKEEP_MIN_ROWS, UPKEEP_TABLE_FRACTION],
          )) as { due: boolean }[];
          // VACUUM cannot run inside a transaction block; the lock holder is in none.
          if (due) await lockHolder.query(`VACUUM (ANALYZE) ${quoteIdentifier(table)}`);
        },
        { maxWaitMs: LOCK_WAIT_MS },
      );
    } catch (error) {
      this.logger.warn(`Statistics of ${table} not refreshed after a write: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
