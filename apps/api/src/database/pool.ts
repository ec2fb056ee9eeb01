import { type Pool, type PoolClient, Query } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { SqlQuery } from './row-stream';

/**
 * The node-postgres pool under TypeORM's data source: the same connections and settings. The one
 * reach into TypeORM's internals (docs/decisions/0024-database-access.md); code takes connections
 * through checkOutConnection, and tests read the pool's counts here.
 */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/**
 * A connection checked out of poolOf (the same statement deadline and type parsers as
 * `DataSource.query`), for work TypeORM cannot do: rows handed over as they arrive, a cursor, a
 * probe with its own deadline. `release()` gives it back once (later calls do nothing);
 * `release(error)` discards it instead, since its state (a statement or transaction cut short) is
 * unknown.
 */
export interface PooledConnection {
  readonly client: PoolClient;
  readonly release: (error?: Error) => void;
}

export async function checkOutConnection(dataSource: DataSource): Promise<PooledConnection> {
  const client = await poolOf(dataSource).connect();
  // A checked-out client has no error listener of the pool's; a connection dying while it is held
  // must not crash the process (whatever runs on it fails with the same error).
  const onClientError = () => undefined;
  client.on('error', onClientError);
  let released = false;
  return {
    client,
    release: (error?: Error) => {
      if (released) return;
      released = true;
      client.off('error', onClientError);
      client.release(error);
    },
  };
}

/**
 * Takes one row. It returns a promise when whoever the rows go to cannot take more for now (a
 * response whose client reads slowly): no more is read off the connection until it settles, though
 * rows of the socket read already received still arrive meanwhile. A throw, or a rejection of that
 * promise, skips the rest of the rows and fails the read with that error once the statement is over.
 */
export type RowHandler<T> = (row: T) => void | Promise<void>;

/**
 * Runs `query` on a pooled connection and hands each row to `onRow` as it is parsed, keeping none
 * of them: for a large page (hundreds of rows) that the caller turns into something smaller at
 * once. Collected into an array, a page's rows stay alive until the last one arrives, across the
 * socket reads in between, and a young-generation collection landing there copies and promotes
 * all of them (docs/performance.md, "Reads"). Same connections, statement deadline and type
 * parsers as `DataSource.query`; a failure is the driver's own error rather than TypeORM's
 * QueryFailedError (isDatabaseUnreachable reads both).
 */
export function forEachRow<T>(dataSource: DataSource, query: SqlQuery, onRow: RowHandler<T>): Promise<void> {
  return withPooledClient(dataSource, (client) => readRows(client, query, onRow));
}

/**
 * Gives `read` a way to run several queries, one after the other, on one connection and from one
 * snapshot (a read-only REPEATABLE READ transaction), each row handed over as forEachRow does: for
 * a reading made of several queries that must agree with each other.
 */
export function inOneSnapshot<R>(
  dataSource: DataSource,
  read: (forEachRow: <T>(query: SqlQuery, onRow: RowHandler<T>) => Promise<void>) => Promise<R>,
): Promise<R> {
  return withPooledClient(dataSource, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await read((query, onRow) => readRows(client, query, onRow));
    await client.query('ROLLBACK');
    return result;
  });
}

/** A pooled connection for `work`, given back when it settles; discarded after a failure. */
async function withPooledClient<R>(dataSource: DataSource, work: (client: PoolClient) => Promise<R>): Promise<R> {
  const connection = await checkOutConnection(dataSource);
  try {
    const result = await work(connection.client);
    connection.release();
    return result;
  } catch (error) {
    connection.release(error as Error);
    throw error;
  }
}

function readRows<T>(client: PoolClient, query: SqlQuery, onRow: RowHandler<T>): Promise<void> {
  const socket = client.connection.stream;
  return new Promise<void>((resolve, reject) => {
    // What the handler threw, or its wait was rejected with: thrown by the read.
    let rowError: Error | null = null;
    const waits = new Set<Promise<void>>();
    let ended = false;
    // Settles once the statement is over and no wait is pending, so a connection is never given
    // back to the pool paused.
    const finish = () => (rowError === null ? resolve() : reject(rowError));
    const settle = () => {
      if (ended && waits.size === 0) finish();
    };
    const waitFor = (full: Promise<void>) => {
      if (waits.has(full)) return;
      if (waits.size === 0) socket.pause();
      waits.add(full);
      full
        .catch((error: unknown) => {
          rowError ??= error as Error;
        })
        .finally(() => {
          waits.delete(full);
          if (waits.size > 0) return;
          socket.resume();
          settle();
        });
    };
    const read = new Query(query.text, query.values);
    read.on('row', (row) => {
      if (rowError !== null) return;
      try {
        const full = onRow(row as T);
        if (full !== undefined) waitFor(full);
      } catch (error) {
        rowError = error as Error;
      }
    });
    read.on('end', () => {
      ended = true;
      settle();
    });
    read.on('error', reject);
    client.query(read);
  });
}
