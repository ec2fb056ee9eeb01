import { DataSource } from 'typeorm';
import { createApp } from '../src/create-app';
import { JsonLogger } from '../src/common/logging/json-logger';
import { createTestDatabase, testConfig } from './support/test-app';
import { withAdminClient } from './support/test-database';

// The first administrator's password goes straight to stdout, outside the structured log.
let stdout: string[] = [];
const realWrite = process.stdout.write.bind(process.stdout);

/** Starts the app on `databaseName`, returns what it printed and the seeded rows. */
async function startOnce(databaseName: string, admin: { email: string | null; password: string | null }) {
  stdout = [];
  const logs: string[] = [];
  const app = await createApp(testConfig(databaseName, { admin }), { logger: new JsonLogger('debug', (line) => logs.push(line)) });
  await app.init();
  const dataSource = app.get(DataSource);
  const users = await dataSource.query<{ email: string; role: string; password_hash: string }[]>(
    'SELECT email, role, password_hash FROM users',
  );
  const scanners = await dataSource.query<{ name: string; is_default: boolean }[]>('SELECT name, is_default FROM scanners');
  await app.close();
  return { logs: logs.join(''), stdout: stdout.join(''), users, scanners };
}

describe('first start', () => {
  const databases: string[] = [];
  beforeAll(() => {
    process.stdout.write = (chunk: string | Uint8Array) => (stdout.push(String(chunk)), true);
  });
  afterAll(async () => {
    process.stdout.write = realWrite;
    await withAdminClient(async (client) => {
      for (const name of databases) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    });
  });

  it('creates admin@localhost with a random password printed once, and the default scanner', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);

    const first = await startOnce(databaseName, { email: null, password: null });
    expect(first.users).toEqual([{ email: 'admin@localhost', role: 'admin', password_hash: expect.stringMatching(/^scrypt\$/) }]);
    expect(first.scanners).toEqual([{ name: 'default', is_default: true }]);
    const printed = /Password:\s+(\S+)/.exec(first.stdout)?.[1];
    expect(printed).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(first.users[0].password_hash).not.toContain(printed);

    const second = await startOnce(databaseName, { email: null, password: null });
    expect(second.users).toHaveLength(1);
    expect(second.scanners).toEqual([{ name: 'default', is_default: true }]);
    expect(second.stdout).not.toContain('Password:');
    expect(second.logs).not.toContain('Created the first administrator');
  });

  it('uses ADMIN_EMAIL and ADMIN_PASSWORD when set, and never prints that password', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);
    const started = await startOnce(databaseName, { email: 'ops@example.com', password: 'configured-secret-1' });
    expect(started.users).toEqual([{ email: 'ops@example.com', role: 'admin', password_hash: expect.any(String) }]);
    expect(started.stdout + started.logs).not.toContain('configured-secret-1');
  });

  it('creates one administrator and one default scanner when replicas start together', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);
    const results = await Promise.all([
      startOnce(databaseName, { email: null, password: null }),
      startOnce(databaseName, { email: null, password: null }),
    ]);
    for (const started of results) {
      expect(started.users).toHaveLength(1);
      expect(started.scanners).toHaveLength(1);
    }
  });
});
