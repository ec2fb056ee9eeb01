import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate } from '@certkeeper/domain/testing';
import { startAcmeServer, type TestAcmeServer, windowBody } from '@certkeeper/net/testing';
import { DAY } from './support/fake-clock';
import { certIdOf, issuingCa } from './support/renewal-info-world';
import {
  callService,
  type RunningService,
  sharedServiceEnvironment,
  signInToService,
  startService,
  stopService,
} from './support/service-process';
import { startSmtpServer, type TestSmtpServer } from './support/smtp';
import { createTestDatabase } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';

const ADMIN = { email: 'admin@renewal-replicas.test', password: 'replica-password-1' };
const CERTIFICATES = 8;

/**
 * The refresh-renewal-info task and the alert job on two API processes sharing one database, all
 * four at once, through a relay that is down for the first round: each ended window is one
 * renewal_overdue e-mail, and each certificate one request to its CA (docs/api-contract.md section 15).
 */
describe('renewal information on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let a: RunningService;
  let b: RunningService;
  let token: string;
  let smtp: TestSmtpServer;
  let acme: TestAcmeServer;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-renewal-replicas-'));
    await chmod(directory, 0o755);
    databaseName = await createTestDatabase();
    smtp = await startSmtpServer();
    acme = await startAcmeServer();
    const env = sharedServiceEnvironment(databaseUrl(databaseName), ADMIN);
    [a, b] = await Promise.all(['a', 'b'].map((name) => startService({ ...env, DATA_DIR: join(directory, name) })));
    token = await signInToService(a, ADMIN);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((replica) => stopService(replica)));
    await smtp?.close();
    await acme?.close();
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  }, 60_000);

  const call = (replica: RunningService, method: string, path: string, body?: string, contentType?: string) =>
    callService(replica, token, { method, path, body, contentType });

  /** Both replicas run the task and the alert job, all at once. */
  const everythingAtOnce = () =>
    Promise.all([
      call(a, 'POST', '/maintenance/tasks/refresh-renewal-info/run'),
      call(b, 'POST', '/maintenance/tasks/refresh-renewal-info/run'),
      call(a, 'POST', '/alerts/run'),
      call(b, 'POST', '/alerts/run'),
    ]);

  it('sends each renewal_overdue e-mail exactly once, through an outage, asking the CA once per certificate', async () => {
    const mail = { enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' };
    expect((await call(b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);
    expect(
      (await call(a, 'PUT', '/settings/acme-cas', JSON.stringify([{ name: 'Local CA', directoryUrl: acme.directoryUrl }]))).status,
    ).toBe(200);
    const now = Date.now();
    acme.reply = () => ({ body: windowBody(new Date(now - 2 * DAY), new Date(now - DAY)) });
    const issuer = await issuingCa('Replica CA');
    const certIds: string[] = [];
    for (let n = 0; n < CERTIFICATES; n += 1) {
      const minted = await mintCertificate({ subject: `CN=overdue-${n}.example.com`, issuer, notAfter: new Date(now + 60 * DAY) });
      certIds.push(certIdOf(minted));
      const created = await call(a, 'POST', '/endpoints', JSON.stringify({ name: `overdue-${n}`, type: 'manual' }));
      const id = (created.body as { id: string }).id;
      expect((await call(b, 'POST', `/endpoints/${id}/certificate`, minted.pem, 'application/x-pem-file')).status).toBe(201);
    }

    // Both replicas refresh at once: one runs, the other finds its lock held (409) or nothing left due.
    const refreshes = await Promise.all([a, b].map((replica) => call(replica, 'POST', '/maintenance/tasks/refresh-renewal-info/run')));
    expect(refreshes.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const ran = refreshes.filter((r) => r.status === 200) as { body: { counts: { requests: number } } }[];
    expect(ran.map((r) => r.body.counts.requests).reduce((x, y) => x + y, 0)).toBe(CERTIFICATES);

    // The relay is down: both alert runs find every e-mail due and deliver none.
    smtp.failing = true;
    const down = await Promise.all([a, b].map((replica) => call(replica, 'POST', '/alerts/run')));
    expect(down.map((r) => (r.body as { failed: number }).failed)).toEqual([CERTIFICATES, CERTIFICATES]);
    expect(smtp.messages).toHaveLength(0);

    smtp.failing = false;
    await everythingAtOnce();
    await Promise.all([call(a, 'POST', '/alerts/run'), call(b, 'POST', '/alerts/run')]);

    const overdue = smtp.messages.filter((m) => m.subject.includes('overdue for renewal'));
    expect(overdue).toHaveLength(CERTIFICATES);
    expect(new Set(overdue.map((m) => m.subject.split(' ')[2])).size).toBe(CERTIFICATES);
    expect(new Set(overdue.map((m) => m.headers.get('message-id'))).size).toBe(CERTIFICATES);
    // Each certificate asked once: its next check is six hours away.
    expect(acme.requests.map((r) => r.certId).sort()).toEqual([...certIds].sort());
    const dashboard = await call(a, 'GET', '/dashboard');
    expect((dashboard.body as { counts: { renewalOverdue: number } }).counts.renewalOverdue).toBe(CERTIFICATES);
  }, 120_000);
});
