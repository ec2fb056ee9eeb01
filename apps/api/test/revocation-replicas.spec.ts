import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate, mintCrl } from '@certkeeper/domain/testing';
import { LoopbackServers } from '@certkeeper/net/testing';
import { DAY } from './support/fake-clock';
import { type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { startSmtpServer, type TestSmtpServer } from './support/smtp';
import { createTestDatabase } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';

const ADMIN = { email: 'admin@revocation-replicas.test', password: 'replica-password-1' };

interface Totals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

/**
 * cert_revoked (docs/api-contract.md section 18) on two API processes sharing one database: the
 * check and the alert job run on both at once, the mail relay is down for the first run, and the
 * administrator still hears of the revocation exactly once.
 */
describe('cert_revoked on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let a: RunningService;
  let b: RunningService;
  let token: string;
  let relay: TestSmtpServer;
  const servers = new LoopbackServers();

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-revocation-replicas-'));
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
    relay = await startSmtpServer();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((replica) => stopService(replica)));
    await relay.close();
    await servers.closeAll();
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  }, 60_000);

  const call = async (replica: RunningService, method: string, path: string, body?: string, contentType = 'application/json') => {
    const response = await fetch(`${replica.baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
    return { status: response.status, body: json ? (JSON.parse(text) as unknown) : text };
  };
  const runAlerts = async (replica: RunningService) => (await call(replica, 'POST', '/alerts/run')).body as Totals;

  it('delivers one cert_revoked per recipient and certificate, through an outage and two replicas running at once', async () => {
    const ca = await mintCertificate({ subject: 'CN=Replica Test CA', ca: true });
    let crl: Uint8Array = new Uint8Array();
    const base = await servers.serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(Buffer.from(crl));
    });
    // A year from expiry: no expiry alert is due, only the revocation.
    const leaf = await mintCertificate({
      issuer: ca,
      subject: 'CN=revoked.example.com',
      serialNumber: '0badc0de',
      notAfter: new Date(Date.now() + 365 * DAY),
      crlUrls: [`${base}/ca.crl`],
    });
    crl = await mintCrl(ca, { entries: [{ serialNumber: '0badc0de', reason: 'keyCompromise' }] });
    expect((await call(b, 'POST', '/certificates', ca.pem, 'application/x-pem-file')).status).toBe(201);
    const endpoint = (await call(b, 'POST', '/endpoints', JSON.stringify({ name: 'revoked-app', type: 'manual' }))).body as { id: string };
    expect((await call(b, 'POST', `/endpoints/${endpoint.id}/certificate`, leaf.pem, 'application/x-pem-file')).status).toBe(201);
    const mail = { enabled: true, host: '127.0.0.1', port: relay.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' };
    expect((await call(b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);

    // Both replicas check at once: one runs the task, the other is refused while it holds the lock, or runs after it.
    const checks = await Promise.all([a, b].map((replica) => call(replica, 'POST', '/maintenance/tasks/check-revocation/run')));
    expect(checks.map((c) => c.status)).toContain(200);
    for (const c of checks) expect([200, 409]).toContain(c.status);

    // The relay refuses the first run: nothing is recorded, so the next run delivers it.
    relay.rejection = { code: 451, text: 'try again later' };
    const outage = await Promise.all([runAlerts(a), runAlerts(b)]);
    expect(outage.reduce((sum, totals) => sum + totals.alertsSent, 0)).toBe(0);
    expect(outage.reduce((sum, totals) => sum + totals.failed, 0)).toBeGreaterThanOrEqual(1);
    relay.rejection = null;

    const [onA, onB] = await Promise.all([runAlerts(a), runAlerts(b)]);
    expect(onA.alertsSent + onB.alertsSent).toBe(1);
    expect(onA.failed + onB.failed).toBe(0);
    expect(relay.messages).toHaveLength(1);
    expect(relay.messages[0].subject).toBe('Certificate for revoked.example.com has been revoked');
    expect(relay.messages[0].text).toMatch(/keyCompromise/);
    expect(relay.messages[0].text).toMatch(/revoked-app/);

    // A check that finds it revoked again calls for nothing new.
    await call(a, 'POST', '/maintenance/tasks/check-revocation/run');
    expect(await runAlerts(b)).toMatchObject({ alertsSent: 0, alreadySent: 1, failed: 0 });
    expect(relay.messages).toHaveLength(1);
  }, 120_000);
});
