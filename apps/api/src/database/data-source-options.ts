import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { SnakeNamingStrategy } from './naming-strategy';

/** The deadline of each statement on the pool's connections, unless a caller sets its own. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

export function dataSourceOptions(databaseUrl: string, statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    namingStrategy: new SnakeNamingStrategy(),
    // gen_random_uuid() is built into PostgreSQL 13+, so no extension needs installing.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: 20,
      // Every network operation has a deadline: connecting, and each statement.
      connectionTimeoutMillis: 5000,
      statement_timeout: statementTimeoutMs,
      idle_in_transaction_session_timeout: 60000,
      // A server that vanished without closing its connections (a failover dropping packets) is
      // noticed on idle connections by TCP keepalive instead of at the next query.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: 'certkeeper-api',
    },
  };
}
