import { createHash } from 'node:crypto';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DataSource } from 'typeorm';
import { AlertsService } from '../src/modules/alerts/alerts.service';
import { DAY, HOUR, MINUTE, SECOND } from './support/fake-clock';
import { hostScanResult } from './support/scan-results';
import { startSmtpServer } from './support/smtp';
import { bearer, createTestApp, createUser, defaultScannerCredentials, login, type TestApp } from './support/test-app';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');

interface Dashboard {
  counts: {
    endpoints: number;
    byType: { host: number; saml: number; manual: number };
    withErrors: number;
    stale: number;
    activeCertificates: number;
    expired: number;
    expiringWithin: { days: number; count: number }[];
    renewalOverdue: number;
    findings?: Record<string, number>;
  };
  errorEndpoints: { id: string; name: string; type: string; errorSince: string; lastScanError: string | null }[];
  expiringCertificates: {
    endpointId: string;
    endpointName: string;
    endpointType: string;
    certUse: string;
    fingerprint: string;
    daysRemaining: number;
  }[];
  staleScans: { id: string; name: string; type: string; lastScannedAt: string | null; scannerId: string | null }[];
  findingEndpoints: { id: string }[];
  alerting: {
    mailEnabled: boolean;
    lastRunAt: string | null;
    lastRun: { alertsSent: number; alreadySent: number; failed: number } | null;
    pendingFailures: number;
    offlineScanners: { id: string; name: string; lastUsedAt: string | null }[];
    failingChannels: { id: string; name: string; kind: string; lastError: string }[];
  };
}

const A = 'dash:a';
const B = 'dash:b';

/**
 * One fixed inventory, the expectations worked out by hand below (now = the fake clock at start):
 *
 *   endpoint        type    tags   state                                        current certificate (daysRemaining)
 *   E1 alpha        host    A      scanned OK now-1h                            C1 (5)
 *   E2 bravo        host    A      failing since now-72h ("connection refused") C2 (expired, -2)
 *   E3 charlie      saml    B      never scanned, created just after now        -
 *   E4 delta        manual  B      -                                            C4 (31)
 *   E5 echo         host    A, B   scanned OK now-100h, then disabled           C5 (30)
 *   E6 foxtrot      host    -      scan-exempt, never scanned                   C6 (10)
 *   E7 golf         host    -      failing since now-2h ("timeout")             -
 *   E8 hotel        host    B      scanned OK exactly now-48h                   C8 (200)
 */
describe('GET /api/v1/dashboard', () => {
  let t: TestApp;
  let admin: string;
  let now: Date;
  let scannerToken: string;
  let defaultScannerId: string;
  const ids: Record<string, string> = {};
  const fingerprints: Record<string, string> = {};

  const at = (offset: number) => new Date(now.getTime() + offset);

  const createEndpoint = async (key: string, body: Record<string, unknown>) => {
    ids[key] = ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
    return ids[key];
  };

  const mint = async (key: string, notAfterOffset: number): Promise<MintedCertificate> => {
    const notAfter = at(notAfterOffset);
    const minted = await mintCertificate({
      subject: `CN=${key.toLowerCase()}.dashboard.test`,
      notBefore: new Date(Math.min(now.getTime(), notAfter.getTime()) - 30 * DAY),
      notAfter,
    });
    fingerprints[key] = sha256(minted.der);
    return minted;
  };

  const upload = async (endpointId: string, minted: MintedCertificate) => {
    const response = await t.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
    expect(response.status).toBe(201);
  };

  const postResults = async (results: unknown[]) => {
    const response = await t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(200);
    for (const outcome of (response.body as { results: { status: string }[] }).results) expect(outcome.status).toBe('accepted');
  };
  const scanOk = (endpointId: string, chain: MintedCertificate[], scannedAt: Date) =>
    postResults([hostScanResult(endpointId, chain, scannedAt)]);
  const scanFailed = (endpointId: string, error: string, scannedAt: Date) =>
    postResults([
      hostScanResult(endpointId, [], scannedAt, { success: false, error, resolvedIp: null, tlsVersion: null, cipherSuite: null }),
    ]);

  const dashboard = async (token: string, query: Record<string, string> = {}) =>
    (await t.http.get('/api/v1/dashboard').query(query).set(bearer(token)).expect(200)).body as Dashboard;

  beforeAll(async () => {
    t = await createTestApp();
    // Whole seconds, as certificates store them, so days remaining are exact.
    t.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
    now = t.clock.now();
    admin = await login(t);
    ({ id: defaultScannerId, token: scannerToken } = await defaultScannerCredentials(t, admin));

    const e1 = await createEndpoint('E1', { name: 'alpha', dnsName: 'alpha.dashboard.test', tags: [A] });
    await scanOk(e1, [await mint('C1', 5 * DAY + HOUR)], at(-HOUR));

    const e2 = await createEndpoint('E2', { name: 'bravo', dnsName: 'bravo.dashboard.test', tags: [A] });
    await scanFailed(e2, 'connection refused', at(-72 * HOUR));
    await upload(e2, await mint('C2', -2 * DAY));

    await createEndpoint('E3', { name: 'charlie', type: 'saml', metadataUrl: 'https://idp.dashboard.test/metadata', tags: [B] });

    await upload(await createEndpoint('E4', { name: 'delta', type: 'manual', tags: [B] }), await mint('C4', 31 * DAY + HOUR));

    const e5 = await createEndpoint('E5', { name: 'echo', dnsName: 'echo.dashboard.test', tags: [A, B] });
    await scanOk(e5, [await mint('C5', 30 * DAY + HOUR)], at(-100 * HOUR));
    await t.http.patch(`/api/v1/endpoints/${e5}`).set(bearer(admin)).send({ enabled: false }).expect(200);

    const e6 = await createEndpoint('E6', { name: 'foxtrot', dnsName: 'foxtrot.dashboard.test', scanExempt: true });
    await upload(e6, await mint('C6', 10 * DAY + HOUR));

    await scanFailed(await createEndpoint('E7', { name: 'golf', dnsName: 'golf.dashboard.test' }), 'timeout', at(-2 * HOUR));

    const e8 = await createEndpoint('E8', { name: 'hotel', dnsName: 'hotel.dashboard.test', tags: [B] });
    await scanOk(e8, [await mint('C8', 200 * DAY + HOUR)], at(-48 * HOUR));

    // Renewal windows their CAs gave: C1's (tag A) and C4's (tag B) have ended, C8's (tag B) has not.
    const windowEnds = { C1: at(-HOUR), C4: at(-DAY), C8: at(DAY) };
    for (const [key, end] of Object.entries(windowEnds)) {
      await t.app.get(DataSource).query(
        `INSERT INTO renewal_info (fingerprint, ca_name, window_start, window_end, checked_at, next_check_at)
         VALUES ($1, 'Test CA', $2, $3, $4, $4)`,
        [fingerprints[key], new Date(end.getTime() - DAY), end, now],
      );
    }
  });
  afterAll(() => t.close());

  const expiringRow = (endpoint: string, certificate: string, daysRemaining: number) => ({
    endpointId: ids[endpoint],
    fingerprint: fingerprints[certificate],
    daysRemaining,
  });

  /** Everything: no subscriptions, or scope=all. */
  const everything = () => ({
    counts: {
      endpoints: 8,
      byType: { host: 6, saml: 1, manual: 1 },
      withErrors: 2,
      stale: 1,
      activeCertificates: 6,
      expired: 1,
      expiringWithin: [
        { days: 30, count: 3 },
        { days: 14, count: 2 },
        { days: 7, count: 1 },
        { days: 1, count: 0 },
      ],
      renewalOverdue: 2,
      // No renewal stored: renewals-not-deployed.spec.ts counts them.
      renewalNotDeployed: 0,
    },
    errorEndpoints: [
      { id: ids.E2, name: 'bravo', type: 'host', errorSince: at(-72 * HOUR).toISOString(), lastScanError: 'connection refused' },
      { id: ids.E7, name: 'golf', type: 'host', errorSince: at(-2 * HOUR).toISOString(), lastScanError: 'timeout' },
    ],
    expiringCertificates: [
      expiringRow('E2', 'C2', -2),
      expiringRow('E1', 'C1', 5),
      expiringRow('E6', 'C6', 10),
      expiringRow('E5', 'C5', 30),
    ],
    staleScans: [{ id: ids.E2, name: 'bravo', type: 'host', lastScannedAt: at(-72 * HOUR).toISOString(), scannerId: defaultScannerId }],
    // Mail never configured, no alert run yet, and the default scanner posted the results above.
    alerting: { mailEnabled: false, lastRunAt: null, lastRun: null, pendingFailures: 0, offlineScanners: [], failingChannels: [] },
  });

  // counts.findings and findingEndpoints are checked by findings.spec.ts.
  const expectDashboard = (actual: Dashboard, expected: ReturnType<typeof everything>) => {
    expect({ ...actual.counts, findings: undefined }).toEqual({ ...expected.counts, findings: undefined });
    expect(actual.errorEndpoints).toEqual(expected.errorEndpoints);
    expect(
      actual.expiringCertificates.map(({ endpointId, fingerprint, daysRemaining }) => ({ endpointId, fingerprint, daysRemaining })),
    ).toEqual(expected.expiringCertificates);
    expect(actual.staleScans).toEqual(expected.staleScans);
    expect(actual.alerting).toEqual(expected.alerting);
  };

  it('shows everything to a user without subscriptions, and with scope=all', async () => {
    const viewer = await createUser(t, 'viewer');
    expectDashboard(await dashboard(viewer.token), everything());
    expectDashboard(await dashboard(viewer.token, { scope: 'all' }), everything());
    expectDashboard(await dashboard(admin, { scope: 'subscribed' }), everything());
  });

  it("scopes counts and panels to the endpoints sharing a tag with the caller's subscriptions; scope=all ignores them", async () => {
    const viewer = await createUser(t, 'viewer');
    await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send([A]).expect(200);
    // Tag A: E1, E2 and E5.
    expectDashboard(await dashboard(viewer.token), {
      counts: {
        endpoints: 3,
        byType: { host: 3, saml: 0, manual: 0 },
        withErrors: 1,
        stale: 1,
        activeCertificates: 3,
        expired: 1,
        expiringWithin: [
          { days: 30, count: 2 },
          { days: 14, count: 1 },
          { days: 7, count: 1 },
          { days: 1, count: 0 },
        ],
        renewalOverdue: 1,
        renewalNotDeployed: 0,
      },
      errorEndpoints: [everything().errorEndpoints[0]],
      expiringCertificates: [expiringRow('E2', 'C2', -2), expiringRow('E1', 'C1', 5), expiringRow('E5', 'C5', 30)],
      staleScans: everything().staleScans,
      // Not scoped: the same for every caller.
      alerting: everything().alerting,
    });
    expectDashboard(await dashboard(viewer.token, { scope: 'all' }), everything());

    // Tag B: E3, E4, E5 and E8; nothing failing, nothing stale at 48 hours.
    await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send([B]).expect(200);
    const b = await dashboard(viewer.token);
    expect(b.counts).toEqual({
      endpoints: 4,
      byType: { host: 2, saml: 1, manual: 1 },
      withErrors: 0,
      stale: 0,
      activeCertificates: 3,
      expired: 0,
      expiringWithin: [
        { days: 30, count: 1 },
        { days: 14, count: 0 },
        { days: 7, count: 0 },
        { days: 1, count: 0 },
      ],
      renewalOverdue: 1,
      renewalNotDeployed: 0,
      // The two host endpoints of tag B, each scanned with a self-signed leaf for another name.
      findings: { hostname_mismatch: 2, self_signed: 2, untrusted: 2 },
    });
    expect(b.errorEndpoints).toEqual([]);
    expect(b.staleScans).toEqual([]);
    expect(b.expiringCertificates.map((row) => row.endpointId)).toEqual([ids.E5]);
  });

  it('gives expiring rows the shape of GET /certificates/active', async () => {
    const body = await dashboard(admin);
    const active = (await t.http.get('/api/v1/certificates/active').set(bearer(admin)).expect(200)).body as unknown[];
    for (const row of body.expiringCertificates) expect(active).toContainEqual(row);
    expect(body.expiringCertificates[0]).toEqual({
      endpointId: ids.E2,
      endpointName: 'bravo',
      endpointType: 'host',
      endpointTags: [A],
      certUse: 'manual',
      fingerprint: fingerprints.C2,
      commonName: 'c2.dashboard.test',
      sans: expect.any(Array) as unknown,
      issuerCommonName: 'c2.dashboard.test',
      notBefore: expect.any(String) as unknown,
      notAfter: at(-2 * DAY).toISOString(),
      daysRemaining: -2,
      firstSeenAt: expect.any(String) as unknown,
      lastSeenAt: expect.any(String) as unknown,
      supersededBy: null,
    });
  });

  it('cuts every panel to limit rows, the counts untouched', async () => {
    const body = await dashboard(admin, { limit: '1' });
    expect({ ...body.counts, findings: undefined }).toEqual(everything().counts);
    expect(body.findingEndpoints).toHaveLength(1);
    expect(body.errorEndpoints.map((row) => row.id)).toEqual([ids.E2]);
    expect(body.expiringCertificates.map((row) => row.fingerprint)).toEqual([fingerprints.C2]);
    expect(body.staleScans.map((row) => row.id)).toEqual([ids.E2]);
    expect((await dashboard(admin, { limit: '100' })).expiringCertificates).toHaveLength(4);
  });

  it('calls a scan stale only when it is older than staleHours; disabled, scan-exempt and manual endpoints never', async () => {
    // E8 was scanned exactly 48 hours ago: not older than 48 hours, older than 47.
    expect((await dashboard(admin, { staleHours: '48' })).staleScans.map((row) => row.id)).toEqual([ids.E2]);
    const at47 = await dashboard(admin, { staleHours: '47' });
    expect(at47.staleScans.map((row) => row.id)).toEqual([ids.E2, ids.E8]);
    expect(at47.counts.stale).toBe(2);
    const at72 = await dashboard(admin, { staleHours: '72' });
    expect(at72.staleScans).toEqual([]);
    expect(at72.counts.stale).toBe(0);
    // E5's scan is 100 hours old, but E5 is disabled; E6 (scan-exempt) and E4 (manual) have never been scanned.
    expect((await dashboard(admin, { staleHours: '1' })).staleScans.map((row) => row.id)).toEqual([ids.E2, ids.E8, ids.E7]);
  });

  it('counts a never-scanned endpoint from its creation, by the application clock', async () => {
    t.clock.set(at(49 * HOUR));
    try {
      // A fresh sign-in: the session from 49 hours ago has expired.
      const body = await dashboard(await login(t));
      // Stalest first: E2 (now-72h), E8 (now-48h), E7 (now-2h), E1 (now-1h), then E3 (created, never scanned).
      expect(body.staleScans.map((row) => row.id)).toEqual([ids.E2, ids.E8, ids.E7, ids.E1, ids.E3]);
      expect(body.staleScans[4]).toEqual({ id: ids.E3, name: 'charlie', type: 'saml', lastScannedAt: null, scannerId: defaultScannerId });
      expect(body.counts.stale).toBe(5);
    } finally {
      t.clock.set(now);
    }
  });

  it('buckets expiring certificates by the configured alert thresholds', async () => {
    await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([5, 31]).expect(200);
    try {
      const body = await dashboard(admin);
      // C1 (5), C6 (10), C5 (30) and C4 (31) within 31 days; C1 alone within 5. C2 is expired, counted apart.
      expect(body.counts.expiringWithin).toEqual([
        { days: 31, count: 4 },
        { days: 5, count: 1 },
      ]);
      expect(body.counts.expired).toBe(1);
      expect(body.expiringCertificates.map((row) => row.fingerprint)).toEqual(
        ['C2', 'C1', 'C6', 'C5', 'C4'].map((key) => fingerprints[key]),
      );
    } finally {
      await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([30, 14, 7, 1]).expect(200);
    }
  });

  it('rejects bad scope, limit and staleHours with 400 and a sentence', async () => {
    for (const query of [
      { scope: 'mine' },
      { limit: '0' },
      { limit: '101' },
      { limit: 'ten' },
      { limit: '1.5' },
      { staleHours: '0' },
      { staleHours: '8761' },
      { staleHours: '-1' },
      { staleHours: '2h' },
    ]) {
      const response = await t.http.get('/api/v1/dashboard').query(query).set(bearer(admin));
      expect([query, response.status]).toEqual([query, 400]);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.text).toMatch(new RegExp(`^${Object.keys(query)[0]} `, 'm'));
    }
    await t.http.get('/api/v1/dashboard').query({ limit: '100', staleHours: '8760', scope: 'all' }).set(bearer(admin)).expect(200);
  });

  it('refuses a request without a token with 401', async () => {
    await t.http.get('/api/v1/dashboard').expect(401);
  });
});

describe('GET /api/v1/dashboard: alerting', () => {
  it('says whether mail is on, what the latest alert run did, what waits for the next, and which scanners are offline', async () => {
    const t = await createTestApp();
    const smtp = await startSmtpServer();
    try {
      t.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
      const start = t.clock.now();
      const later = (ms: number) => new Date(start.getTime() + ms).toISOString();
      // A fresh session each time: the clock moves past a session's idle limit.
      const alerting = async (query: Record<string, string> = {}) =>
        (
          (
            await t.http
              .get('/api/v1/dashboard')
              .query(query)
              .set(bearer(await login(t)))
              .expect(200)
          ).body as Dashboard
        ).alerting;
      const runNow = async () =>
        (
          await t.http
            .post('/api/v1/alerts/run')
            .set(bearer(await login(t)))
            .expect(200)
        ).body as unknown;
      const admin = await login(t);
      const defaultScanner = await defaultScannerCredentials(t, admin);
      const offlineDefault = (lastUsedAt: string | null) => [{ id: defaultScanner.id, name: 'default', lastUsedAt }];

      expect(await alerting()).toEqual({
        mailEnabled: false,
        lastRunAt: null,
        lastRun: null,
        pendingFailures: 0,
        offlineScanners: offlineDefault(null),
        failingChannels: [],
      });

      // A run with mail off is a run too: nothing sent.
      expect(await runNow()).toEqual({ alertsSent: 0, alreadySent: 0, failed: 0, failures: [] });
      expect(await alerting()).toMatchObject({
        mailEnabled: false,
        lastRunAt: later(0),
        lastRun: { alertsSent: 0, alreadySent: 0, failed: 0 },
      });

      // Mail on, a recipient, a certificate due, and an SMTP server refusing everything.
      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send({ enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' })
        .expect(200);
      await t.http.put('/api/v1/me').set(bearer(admin)).send({ notify: false }).expect(200);
      await createUser(t, 'viewer');
      const endpoint = (
        (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name: 'due', type: 'manual' }).expect(201)).body as {
          id: string;
        }
      ).id;
      const due = await mintCertificate({ subject: 'CN=due.alerting.test', notAfter: new Date(start.getTime() + 5 * DAY) });
      await t.http
        .post(`/api/v1/endpoints/${endpoint}/certificate`)
        .set(bearer(admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(due.pem)
        .expect(201);
      smtp.failing = true;
      t.clock.advance(MINUTE);
      expect(await runNow()).toEqual({
        alertsSent: 0,
        alreadySent: 0,
        failed: 1,
        failures: [{ reason: 'rejected', replyCode: 451, count: 1 }],
      });
      const failedRun = {
        mailEnabled: true,
        lastRunAt: later(MINUTE),
        lastRun: { alertsSent: 0, alreadySent: 0, failed: 1 },
        pendingFailures: 1,
      };
      expect(await alerting()).toMatchObject(failedRun);
      // The same for every caller and scope, and kept in the database, not in this process.
      expect(await alerting({ scope: 'subscribed' })).toEqual(await alerting({ scope: 'all' }));
      expect(await t.app.get(DataSource).query('SELECT ran_at, alerts_sent, already_sent, failed FROM alert_last_run')).toEqual([
        { ran_at: new Date(later(MINUTE)), alerts_sent: 0, already_sent: 0, failed: 1 },
      ]);

      // The hourly run retries it.
      smtp.failing = false;
      t.clock.advance(HOUR);
      await t.app.get(AlertsService).runScheduled();
      expect(await alerting()).toMatchObject({
        lastRunAt: later(HOUR + MINUTE),
        lastRun: { alertsSent: 1, alreadySent: 0, failed: 0 },
        pendingFailures: 0,
      });
      expect(smtp.messages).toHaveLength(1);

      // The default scanner (hourly) calls in, then is quiet for more than two hours.
      await t.http.get('/api/v1/scanner/config').set(bearer(defaultScanner.token));
      const calledIn = t.clock.now().toISOString();
      expect((await alerting()).offlineScanners).toEqual([]);
      t.clock.advance(2 * HOUR);
      expect((await alerting()).offlineScanners).toEqual([]);
      t.clock.advance(SECOND);
      expect((await alerting()).offlineScanners).toEqual(offlineDefault(calledIn));
    } finally {
      await smtp.close();
      await t.close();
    }
  });
});
