import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { verifyPassword } from '../src/common/auth/secrets';
import { createApp } from '../src/create-app';
import { JsonLogger } from '../src/common/logging/json-logger';
import type { AppConfig } from '../src/config/app-config';
import { createTestDatabase, testConfig } from './support/test-app';
import { withAdminClient } from './support/test-database';

// The banner goes straight to stdout, outside the structured log.
let stdout: string[] = [];
const realWrite = process.stdout.write.bind(process.stdout);

/** Starts the app on `databaseName`, returns what it printed and the seeded rows. */
async function startOnce(databaseName: string, admin: AppConfig['admin']) {
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

  it('creates admin@localhost with a random password in a file only the service may read, and the default scanner', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);
    const directory = await mkdtemp(join(tmpdir(), 'certkeeper-first-start-'));
    // A leftover file from an earlier installation is replaced, never appended to or kept.
    const passwordFile = join(directory, 'initial-admin-password');
    await writeFile(passwordFile, 'stale\n', { mode: 0o644 });
    try {
      const first = await startOnce(databaseName, { email: null, password: null, passwordFile });
      expect(first.users).toEqual([{ email: 'admin@localhost', role: 'admin', password_hash: expect.stringMatching(/^scrypt\$/) }]);
      expect(first.scanners).toEqual([{ name: 'default', is_default: true }]);
      expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
      const password = (await readFile(passwordFile, 'utf8')).trim();
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(await verifyPassword(password, first.users[0].password_hash)).toBe(true);
      // The banner and the log name the file; neither holds the password.
      expect(first.stdout).toContain(`Password file:       ${passwordFile}`);
      expect(first.logs).toContain(passwordFile);
      expect(first.stdout + first.logs).not.toContain(password);

      const second = await startOnce(databaseName, { email: null, password: null, passwordFile });
      expect(second.users).toHaveLength(1);
      expect(second.scanners).toEqual([{ name: 'default', is_default: true }]);
      expect(second.stdout).not.toContain('First administrator');
      expect(second.logs).not.toContain('Created the first administrator');
      expect((await readFile(passwordFile, 'utf8')).trim()).toBe(password);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('uses ADMIN_EMAIL and ADMIN_PASSWORD when set, and never prints that password', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);
    const passwordFile = join(tmpdir(), `${databaseName}-admin-password`);
    const started = await startOnce(databaseName, { email: 'ops@example.com', password: 'configured-secret-1', passwordFile });
    expect(started.users).toEqual([{ email: 'ops@example.com', role: 'admin', password_hash: expect.any(String) }]);
    expect(started.stdout + started.logs).not.toContain('configured-secret-1');
    // The operator chose the password: there is nothing to write down.
    expect(existsSync(passwordFile)).toBe(false);
  });

  it('creates one administrator and one default scanner when replicas start together', async () => {
    const databaseName = await createTestDatabase();
    databases.push(databaseName);
    const passwordFile = join(tmpdir(), `${databaseName}-admin-password`);
    const results = await Promise.all([
      startOnce(databaseName, { email: null, password: null, passwordFile }),
      startOnce(databaseName, { email: null, password: null, passwordFile }),
    ]);
    await rm(passwordFile, { force: true });
    for (const started of results) {
      expect(started.users).toHaveLength(1);
      expect(started.scanners).toHaveLength(1);
    }
  });
});
