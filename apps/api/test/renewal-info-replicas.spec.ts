import { mintCertificate } from '@certkeeper/domain/testing';
import { startAcmeServer, type TestAcmeServer, windowBody } from '@certkeeper/net/testing';
import { DAY } from './support/fake-clock';
import { certIdOf, issuingCa } from './support/renewal-info-world';
import { replicaPair } from './support/replica-pair';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';

const ADMIN = { email: 'admin@renewal-replicas.test', password: 'replica-password-1' };
const CERTIFICATES = 8;

/**
 * The refresh-renewal-info task and the alert job on two API processes sharing one database, all
 * four at once, through a relay that is down for the first round: each ended window is one
 * renewal_overdue e-mail, and each certificate one request to its CA (docs/api-contract.md section 15).
 */
describe('renewal information on two replicas', () => {
  const replicas = replicaPair('renewal-info-replicas', ADMIN);
  const { call } = replicas;
  let smtp: TestSmtpServer;
  let acme: TestAcmeServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    acme = await startAcmeServer();
  });

  afterAll(async () => {
    await smtp?.close();
    await acme?.close();
  });

  /** Both replicas run the task and the alert job, all at once. */
  const everythingAtOnce = () =>
    Promise.all([
      call(replicas.a, 'POST', '/maintenance/tasks/refresh-renewal-info/run'),
      call(replicas.b, 'POST', '/maintenance/tasks/refresh-renewal-info/run'),
      call(replicas.a, 'POST', '/alerts/run'),
      call(replicas.b, 'POST', '/alerts/run'),
    ]);

  it('sends each renewal_overdue e-mail exactly once, through an outage, asking the CA once per certificate', async () => {
    expect((await call(replicas.b, 'PUT', '/settings/mail', JSON.stringify(mailSettingsFor(smtp)))).status).toBe(200);
    expect(
      (await call(replicas.a, 'PUT', '/settings/acme-cas', JSON.stringify([{ name: 'Local CA', directoryUrl: acme.directoryUrl }]))).status,
    ).toBe(200);
    const now = Date.now();
    acme.reply = () => ({ body: windowBody(new Date(now - 2 * DAY), new Date(now - DAY)) });
    const issuer = await issuingCa('Replica CA');
    const certIds: string[] = [];
    for (let n = 0; n < CERTIFICATES; n += 1) {
      const minted = await mintCertificate({ subject: `CN=overdue-${n}.example.com`, issuer, notAfter: new Date(now + 60 * DAY) });
      certIds.push(certIdOf(minted));
      const created = await call(replicas.a, 'POST', '/endpoints', JSON.stringify({ name: `overdue-${n}`, type: 'manual' }));
      const id = (created.body as { id: string }).id;
      expect((await call(replicas.b, 'POST', `/endpoints/${id}/certificate`, minted.pem, 'application/x-pem-file')).status).toBe(201);
    }

    // Both replicas refresh at once: one runs, the other finds its lock held (409) or nothing left due.
    const refreshes = await Promise.all(
      [replicas.a, replicas.b].map((replica) => call(replica, 'POST', '/maintenance/tasks/refresh-renewal-info/run')),
    );
    expect(refreshes.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const ran = refreshes.filter((r) => r.status === 200) as { body: { counts: { requests: number } } }[];
    expect(ran.map((r) => r.body.counts.requests).reduce((x, y) => x + y, 0)).toBe(CERTIFICATES);

    // The relay is down: both alert runs find every e-mail due and deliver none.
    smtp.failing = true;
    const down = await Promise.all([replicas.a, replicas.b].map((replica) => call(replica, 'POST', '/alerts/run')));
    expect(down.map((r) => (r.body as { failed: number }).failed)).toEqual([CERTIFICATES, CERTIFICATES]);
    expect(smtp.messages).toHaveLength(0);

    smtp.failing = false;
    await everythingAtOnce();
    await Promise.all([call(replicas.a, 'POST', '/alerts/run'), call(replicas.b, 'POST', '/alerts/run')]);

    const overdue = smtp.messages.filter((m) => m.subject.includes('overdue for renewal'));
    expect(overdue).toHaveLength(CERTIFICATES);
    expect(new Set(overdue.map((m) => m.subject.split(' ')[2])).size).toBe(CERTIFICATES);
    expect(new Set(overdue.map((m) => m.headers.get('message-id'))).size).toBe(CERTIFICATES);
    // Each certificate asked once: its next check is six hours away.
    expect(acme.requests.map((r) => r.certId).sort()).toEqual([...certIds].sort());
    const dashboard = await call(replicas.a, 'GET', '/dashboard');
    expect((dashboard.body as { counts: { renewalOverdue: number } }).counts.renewalOverdue).toBe(CERTIFICATES);
  }, 120_000);
});
