import { Client } from 'pg';

/** Migrated once per run by the global setup; each test app gets a fresh copy of it. */
export const TEMPLATE_DATABASE = 'certkeeper_template';

/** URL of the test cluster's maintenance database, published by the global setup. */
export function adminDatabaseUrl(): string {
  const url = process.env.CERTKEEPER_TEST_ADMIN_URL;
  if (!url) throw new Error('The API test global setup did not run (CERTKEEPER_TEST_ADMIN_URL is unset).');
  return url;
}

export function databaseUrl(name: string): string {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs statements on the maintenance database (CREATE/DROP DATABASE, terminating sessions). */
export async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Ends the API's listening connection (DatabaseNotifications) to `name`, as a network cut would; it reconnects by itself. */
export async function cutOffListener(name: string): Promise<void> {
  await withAdminClient((client) =>
    client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'certkeeper-api-listen' AND datname = $1`,
      [name],
    ),
  );
}

/** Stops the database answering `name`, as if the server went away; returns a function that heals it. */
export async function cutOffDatabase(name: string): Promise<() => Promise<void>> {
  await withAdminClient(async (client) => {
    await client.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  });
  return () => withAdminClient(async (client) => void (await client.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`)));
}
