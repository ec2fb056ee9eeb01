import { type Pool, Query } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { SqlQuery } from './row-stream';

/** The node-postgres pool under TypeORM's data source: the same connections and settings. */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/**
 * Runs `query` on a pooled connection and hands each row to `onRow` as it is parsed, keeping none
 * of them: for a large page (hundreds of rows) that the caller turns into something smaller at
 * once. Collected into an array, a page's rows stay alive until the last one arrives, across the
 * socket reads in between, and a young-generation collection landing there copies and promotes
 * all of them (docs/performance.md, "Reads"). Same connections, statement deadline and type
 * parsers as `DataSource.query`; a failure is the driver's own error rather than TypeORM's
 * QueryFailedError (isDatabaseUnreachable reads both). When `onRow` throws, the rest of the rows
 * are skipped and the read fails with that error once the statement is over.
 */
export async function forEachRow<T>(dataSource: DataSource, query: SqlQuery, onRow: (row: T) => void): Promise<void> {
  const client = await poolOf(dataSource).connect();
  // A checked-out client has no error listener of the pool's; a connection dying under the read
  // must not crash the process (the query fails with the same error).
  const onClientError = () => undefined;
  client.on('error', onClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      let rowError: unknown = null;
      const read = new Query(query.text, query.values);
      read.on('row', (row) => {
        if (rowError !== null) return;
        try {
          onRow(row as T);
        } catch (error) {
          rowError = error;
        }
      });
      read.on('end', () => (rowError === null ? resolve() : reject(rowError as Error)));
      read.on('error', reject);
      client.query(read);
    });
  } catch (error) {
    // As pool.query does: a connection whose statement failed is discarded rather than pooled.
    client.off('error', onClientError);
    client.release(true);
    throw error;
  }
  client.off('error', onClientError);
  client.release();
}
