import { mintCertificate, mintCrl } from '@certkeeper/domain/testing';
import { LoopbackServers } from '@certkeeper/net/testing';
import { DAY } from './support/fake-clock';
import { replicaPair } from './support/replica-pair';
import type { RunningService } from './support/service-process';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';

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
  const replicas = replicaPair('revocation-replicas', ADMIN);
  let relay: TestSmtpServer;
  const servers = new LoopbackServers();

  beforeAll(async () => {
    relay = await startSmtpServer();
  });

  afterAll(async () => {
    await relay.close();
    await servers.closeAll();
  });

  const { call } = replicas;
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
    expect((await call(replicas.b, 'POST', '/certificates', ca.pem, 'application/x-pem-file')).status).toBe(201);
    const endpoint = (await call(replicas.b, 'POST', '/endpoints', JSON.stringify({ name: 'revoked-app', type: 'manual' }))).body as {
      id: string;
    };
    expect((await call(replicas.b, 'POST', `/endpoints/${endpoint.id}/certificate`, leaf.pem, 'application/x-pem-file')).status).toBe(201);
    const mail = mailSettingsFor(relay);
    expect((await call(replicas.b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);

    // Both replicas check at once: one runs the task, the other is refused while it holds the lock, or runs after it.
    const checks = await Promise.all(
      [replicas.a, replicas.b].map((replica) => call(replica, 'POST', '/maintenance/tasks/check-revocation/run')),
    );
    expect(checks.map((c) => c.status)).toContain(200);
    for (const c of checks) expect([200, 409]).toContain(c.status);

    // The relay refuses the first run: nothing is recorded, so the next run delivers it.
    relay.rejection = { code: 451, text: 'try again later' };
    const outage = await Promise.all([runAlerts(replicas.a), runAlerts(replicas.b)]);
    expect(outage.reduce((sum, totals) => sum + totals.alertsSent, 0)).toBe(0);
    expect(outage.reduce((sum, totals) => sum + totals.failed, 0)).toBeGreaterThanOrEqual(1);
    relay.rejection = null;

    const [onA, onB] = await Promise.all([runAlerts(replicas.a), runAlerts(replicas.b)]);
    expect(onA.alertsSent + onB.alertsSent).toBe(1);
    expect(onA.failed + onB.failed).toBe(0);
    expect(relay.messages).toHaveLength(1);
    expect(relay.messages[0].subject).toBe('Certificate for revoked.example.com has been revoked');
    expect(relay.messages[0].text).toMatch(/keyCompromise/);
    expect(relay.messages[0].text).toMatch(/revoked-app/);

    // A check that finds it revoked again calls for nothing new.
    await call(replicas.a, 'POST', '/maintenance/tasks/check-revocation/run');
    expect(await runAlerts(replicas.b)).toMatchObject({ alertsSent: 0, alreadySent: 1, failed: 0 });
    expect(relay.messages).toHaveLength(1);
  }, 120_000);
});
