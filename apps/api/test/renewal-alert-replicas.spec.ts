import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import { DAY } from './support/fake-clock';
import { replicaPair } from './support/replica-pair';
import { type RunningService, stopService } from './support/service-process';
import { type CapturedMail, mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';

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
  const replicas = replicaPair('renewal-replicas', ADMIN);
  const { call } = replicas;
  let relay: TestSmtpServer;
  let killAfter: number | null = null;
  let names = 0;

  beforeAll(async () => {
    relay = await startSmtpServer({
      // The chosen message reaches the relay; replica A dies before it hears "250".
      onAccepted: async () => {
        if (killAfter === null || relay.messages.length !== killAfter) return;
        killAfter = null;
        await stopService(replicas.a, 'SIGKILL');
      },
    });
    const mail = mailSettingsFor(relay);
    expect((await call(replicas.b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await relay?.close();
  });

  const runOn = async (replica: RunningService) => (await call(replica, 'POST', '/alerts/run')).body as Totals;
  const daysAgo = (days: number) => new Date(Math.floor((Date.now() - days * DAY) / 1000) * 1000);
  const mint = (host: string, issuedDaysAgo: number) =>
    mintCertificate({ subject: `CN=${host}`, sans: [host], notBefore: daysAgo(issuedDaysAgo), notAfter: new Date(Date.now() + 80 * DAY) });
  const upload = (id: string, minted: MintedCertificate, query = '') =>
    call(replicas.b, 'POST', `/endpoints/${id}/certificate${query}`, minted.pem, 'application/x-pem-file');

  /** `count` manual endpoints whose current certificate is an older one reactivated: one rotation_regression (rollback) each. */
  async function rolledBack(prefix: string, count: number): Promise<void> {
    for (let n = 0; n < count; n += 1) {
      names += 1;
      const host = `${prefix}-${names}.example.com`;
      const id = ((await call(replicas.b, 'POST', '/endpoints', JSON.stringify({ name: host, type: 'manual' }))).body as { id: string }).id;
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
      const id = ((await call(replicas.b, 'POST', '/endpoints', JSON.stringify({ name: host, dnsName: host }))).body as { id: string }).id;
      expect((await upload(id, await mint(host, 40), '?certUse=tls')).status).toBe(201);
      const renewal = await mint(host, 3);
      expect((await call(replicas.b, 'POST', '/certificates', renewal.pem, 'application/x-pem-file')).status).toBe(201);
      renewals.push(host);
    }
    // First stored two days ago: past the default 24 hours a renewal waits.
    const client = new Client({ connectionString: replicas.databaseUrl });
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
    const [onA, onB] = await Promise.all([runOn(replicas.a), runOn(replicas.b)]);
    expect(onA.alertsSent + onB.alertsSent).toBe(8);
    expect(onA.failed + onB.failed).toBe(0);
    expect(relay.messages).toHaveLength(8);
    const subjects = subjectsOf(relay.messages);
    expect(new Set(subjects).size).toBe(8);
    expect(subjects.filter((s) => s.endsWith('was replaced by a weaker one'))).toHaveLength(4);
    expect(subjects.filter((s) => s.endsWith('the renewal is not deployed'))).toHaveLength(4);
    expect(await runOn(replicas.b)).toMatchObject({ alertsSent: 0, alreadySent: 8, failed: 0 });
  }, 120_000);

  it('a relay refusing everything loses nothing: the other replica delivers each once when it is back', async () => {
    await rolledBack('outage', 2);
    await notDeployed('outage', 2);
    const before = relay.messages.length;
    relay.failing = true;
    expect(await runOn(replicas.a)).toMatchObject({ alertsSent: 0, failed: 4 });
    relay.failing = false;
    expect(await runOn(replicas.b)).toMatchObject({ alertsSent: 4, failed: 0 });
    const delivered = relay.messages.slice(before);
    expect(delivered).toHaveLength(4);
    expect(new Set(subjectsOf(delivered)).size).toBe(4);
    expect(await runOn(replicas.a)).toMatchObject({ alertsSent: 0, failed: 0 });
  }, 120_000);

  it('resends, with the same Message-ID, only the one event a killed replica had sent but not recorded', async () => {
    await rolledBack('crash', 3);
    await notDeployed('crash', 3);
    const before = relay.messages.length;
    killAfter = before + 3;
    await call(replicas.a, 'POST', '/alerts/run').catch(() => undefined);
    expect(killAfter).toBeNull();
    const interrupted = relay.messages[before + 2].headers.get('message-id');

    expect(await runOn(replicas.b)).toMatchObject({ alertsSent: 4, failed: 0 });
    const delivered = relay.messages.slice(before);
    expect(delivered).toHaveLength(7);
    const ids = delivered.map((m) => m.headers.get('message-id'));
    expect(new Set(ids).size).toBe(6);
    expect(ids.filter((id) => id === interrupted)).toHaveLength(2);
    expect(new Set(subjectsOf(delivered)).size).toBe(6);
    expect(await runOn(replicas.b)).toMatchObject({ alertsSent: 0, failed: 0 });
  }, 120_000);
});
