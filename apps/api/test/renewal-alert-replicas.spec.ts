import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import { DAY } from './support/fake-clock';
import { callService, type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { type CapturedMail, mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';
import { createTestDatabase } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';

const ADMIN = { email: 'admin@renewal-replicas.test', password: 'replica-password-1' };

interface Totals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

/**
 * rotation_regression and renewal_not_deployed keep the alert job's exactly-once promise
 * (docs/api-contract.md sections 6 and 16) on two API processes sharing one database: runs at
 * the same time, a relay refusing everything for a run, and a replica killed between the relay's
 * acceptance and the delivery record.
 */
describe('the renewal events on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let a: RunningService;
  let b: RunningService;
  let token: string;
  let relay: TestSmtpServer;
  let killAfter: number | null = null;
  let names = 0;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-renewal-replicas-'));
    await chmod(directory, 0o755);
    databaseName = await createTestDatabase();
    const env = sharedServiceEnvironment(databaseUrl(databaseName), ADMIN);
    [a, b] = await Promise.all(['a', 'b'].map((name) => startService({ ...env, DATA_DIR: join(directory, name) })));
    const login = await fetch(`${a.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    token = ((await login.json()) as { token: string }).token;
    relay = await startSmtpServer({
      // The chosen message reaches the relay; replica A dies before it hears "250".
      onAccepted: async () => {
        if (killAfter === null || relay.messages.length !== killAfter) return;
        killAfter = null;
        await stopService(a, 'SIGKILL');
      },
    });
    const mail = mailSettingsFor(relay);
    expect((await call(b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((replica) => stopService(replica)));
    await relay?.close();
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  }, 60_000);

  const call = (replica: RunningService, method: string, path: string, body?: string, contentType?: string) =>
    callService(replica, token, { method, path, body, contentType, timeoutMs: 120_000 });
  const runOn = async (replica: RunningService) => (await call(replica, 'POST', '/alerts/run')).body as Totals;
  const daysAgo = (days: number) => new Date(Math.floor((Date.now() - days * DAY) / 1000) * 1000);
  const mint = (host: string, issuedDaysAgo: number) =>
    mintCertificate({ subject: `CN=${host}`, sans: [host], notBefore: daysAgo(issuedDaysAgo), notAfter: new Date(Date.now() + 80 * DAY) });
  const upload = (id: string, minted: MintedCertificate, query = '') =>
    call(b, 'POST', `/endpoints/${id}/certificate${query}`, minted.pem, 'application/x-pem-file');

  /** `count` manual endpoints whose current certificate is an older one reactivated: one rotation_regression (rollback) each. */
  async function rolledBack(prefix: string, count: number): Promise<void> {
    for (let n = 0; n < count; n += 1) {
      names += 1;
      const host = `${prefix}-${names}.example.com`;
      const id = ((await call(b, 'POST', '/endpoints', JSON.stringify({ name: host, type: 'manual' }))).body as { id: string }).id;
      const [older, newer] = [await mint(host, 40), await mint(host, 5)];
      for (const minted of [older, newer, older]) expect([200, 201]).toContain((await upload(id, minted)).status);
    }
  }

  /** `count` host endpoints serving a certificate whose renewal was stored two days ago: one renewal_not_deployed each. */
  async function notDeployed(prefix: string, count: number): Promise<void> {
    const renewals: string[] = [];
    for (let n = 0; n < count; n += 1) {
      names += 1;
      const host = `${prefix}-${names}.example.com`;
      const id = ((await call(b, 'POST', '/endpoints', JSON.stringify({ name: host, dnsName: host }))).body as { id: string }).id;
      expect((await upload(id, await mint(host, 40), '?certUse=tls')).status).toBe(201);
      const renewal = await mint(host, 3);
      expect((await call(b, 'POST', '/certificates', renewal.pem, 'application/x-pem-file')).status).toBe(201);
      renewals.push(host);
    }
    // First stored two days ago: past the default 24 hours a renewal waits.
    const client = new Client({ connectionString: databaseUrl(databaseName) });
    await client.connect();
    try {
      await client.query(`UPDATE certificates SET created_at = now() - interval '2 days' WHERE common_name = ANY($1::text[])`, [renewals]);
    } finally {
      await client.end();
    }
  }

  const subjectsOf = (messages: CapturedMail[]) => messages.map((m) => m.subject).sort();

  it('two replicas running at once deliver each event once', async () => {
    await rolledBack('together', 4);
    await notDeployed('together', 4);
    const [onA, onB] = await Promise.all([runOn(a), runOn(b)]);
    expect(onA.alertsSent + onB.alertsSent).toBe(8);
    expect(onA.failed + onB.failed).toBe(0);
    expect(relay.messages).toHaveLength(8);
    const subjects = subjectsOf(relay.messages);
    expect(new Set(subjects).size).toBe(8);
    expect(subjects.filter((s) => s.endsWith('was replaced by a weaker one'))).toHaveLength(4);
    expect(subjects.filter((s) => s.endsWith('the renewal is not deployed'))).toHaveLength(4);
    expect(await runOn(b)).toMatchObject({ alertsSent: 0, alreadySent: 8, failed: 0 });
  }, 120_000);

  it('a relay refusing everything loses nothing: the other replica delivers each once when it is back', async () => {
    await rolledBack('outage', 2);
    await notDeployed('outage', 2);
    const before = relay.messages.length;
    relay.failing = true;
    expect(await runOn(a)).toMatchObject({ alertsSent: 0, failed: 4 });
    relay.failing = false;
    expect(await runOn(b)).toMatchObject({ alertsSent: 4, failed: 0 });
    const delivered = relay.messages.slice(before);
    expect(delivered).toHaveLength(4);
    expect(new Set(subjectsOf(delivered)).size).toBe(4);
    expect(await runOn(a)).toMatchObject({ alertsSent: 0, failed: 0 });
  }, 120_000);

  it('resends, with the same Message-ID, only the one event a killed replica had sent but not recorded', async () => {
    await rolledBack('crash', 3);
    await notDeployed('crash', 3);
    const before = relay.messages.length;
    killAfter = before + 3;
    await call(a, 'POST', '/alerts/run').catch(() => undefined);
    expect(killAfter).toBeNull();
    const interrupted = relay.messages[before + 2].headers.get('message-id');

    expect(await runOn(b)).toMatchObject({ alertsSent: 4, failed: 0 });
    const delivered = relay.messages.slice(before);
    expect(delivered).toHaveLength(7);
    const ids = delivered.map((m) => m.headers.get('message-id'));
    expect(new Set(ids).size).toBe(6);
    expect(ids.filter((id) => id === interrupted)).toHaveLength(2);
    expect(new Set(subjectsOf(delivered)).size).toBe(6);
    expect(await runOn(b)).toMatchObject({ alertsSent: 0, failed: 0 });
  }, 120_000);
});
