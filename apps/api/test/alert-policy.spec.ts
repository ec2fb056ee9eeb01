import { DataSource } from 'typeorm';
import { mintCertificate } from '@certkeeper/domain/testing';
import { DAY, HOUR } from './support/fake-clock';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';
import { bearer, createTestApp, createUser, login, manualEndpointWith, type TestApp } from './support/test-app';

const DEFAULT_POLICY = { lifetimeAware: false, lifetimeFraction: 0.33, renewalInfo: true, supersededAfterHours: 24 };

describe('GET|PUT /settings/alert-policy and /settings/acme-cas', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
  });
  afterAll(() => t.close());

  it('answers the defaults, changes the fields given, and audits the whole policy', async () => {
    expect((await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body).toEqual(DEFAULT_POLICY);
    const changed = await t.http
      .put('/api/v1/settings/alert-policy')
      .set(bearer(admin))
      .send({ lifetimeAware: true, lifetimeFraction: 0.5 });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...DEFAULT_POLICY, lifetimeAware: true, lifetimeFraction: 0.5 });
    expect((await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body).toEqual(changed.body);
    const audit = (await t.http.get('/api/v1/audit').query({ action: 'settings:alert-policy' }).set(bearer(admin)).expect(200)).body as {
      items: { details: unknown }[];
    };
    expect(audit.items.map((item) => item.details)).toEqual([changed.body]);
  });

  it.each([
    [{ lifetimeFraction: 0.01 }, 'lifetimeFraction must not be less than 0.05'],
    [{ lifetimeFraction: 0.95 }, 'lifetimeFraction must not be greater than 0.9'],
    [{ lifetimeFraction: '0.3' }, 'lifetimeFraction must be a number'],
    [{ supersededAfterHours: 721 }, 'supersededAfterHours must not be greater than 720'],
    [{ supersededAfterHours: 1.5 }, 'supersededAfterHours must be an integer number'],
    [{ lifetimeAware: 'yes' }, 'lifetimeAware must be a boolean value'],
    [{ renewal: true }, 'property renewal should not exist'],
  ])('refuses %j with 400 "%s" and changes nothing', async (body, sentence) => {
    const before = (await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body as unknown;
    const response = await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send(body).expect(400);
    expect(response.type).toBe('text/plain');
    expect(response.text).toContain(sentence);
    expect((await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body).toEqual(before);
  });

  it("answers Let's Encrypt and Google Trust Services until configured, then the CAs stored, audited", async () => {
    expect((await t.http.get('/api/v1/settings/acme-cas').set(bearer(admin)).expect(200)).body).toEqual([
      { name: "Let's Encrypt", directoryUrl: 'https://acme-v02.api.letsencrypt.org/directory' },
      { name: 'Google Trust Services', directoryUrl: 'https://dv.acme-v02.api.pki.goog/directory' },
    ]);
    const cas = [{ name: 'Internal CA', directoryUrl: 'http://acme.internal:8080/directory' }];
    expect((await t.http.put('/api/v1/settings/acme-cas').set(bearer(admin)).send(cas).expect(200)).body).toEqual(cas);
    expect((await t.http.get('/api/v1/settings/acme-cas').set(bearer(admin)).expect(200)).body).toEqual(cas);
    const audit = (await t.http.get('/api/v1/audit').query({ action: 'settings:acme-cas' }).set(bearer(admin)).expect(200)).body as {
      totalCount: number;
    };
    expect(audit.totalCount).toBe(1);
  });

  it.each([
    [{ name: 'x', directoryUrl: 'https://x' }, 'The body must be a JSON array'],
    [[{ name: 'x', directoryUrl: 'ftp://x/directory' }], '[0].directoryUrl must be an http or https URL'],
    [[{ name: '', directoryUrl: 'https://x/directory' }], '[0].name must be a non-empty string'],
    [[{ name: 'x', directoryUrl: 'https://x/directory', key: 'k' }], '[0].key is not a property of an ACME CA'],
    [
      [
        { name: 'Same', directoryUrl: 'https://a/directory' },
        { name: 'same', directoryUrl: 'https://b/directory' },
      ],
      '[1].name repeats the name of [0]',
    ],
    [Array.from({ length: 21 }, (_, n) => ({ name: `ca-${n}`, directoryUrl: 'https://x/directory' })), 'At most 20 ACME CAs.'],
  ])('refuses ACME CAs %j with 400 "%s"', async (body, sentence) => {
    const before = (await t.http.get('/api/v1/settings/acme-cas').set(bearer(admin)).expect(200)).body as unknown;
    const response = await t.http.put('/api/v1/settings/acme-cas').set(bearer(admin)).send(body).expect(400);
    expect(response.text).toContain(sentence);
    expect((await t.http.get('/api/v1/settings/acme-cas').set(bearer(admin)).expect(200)).body).toEqual(before);
  });

  it('lets settings:view (an operator) read and only settings:edit change; a viewer reads nothing', async () => {
    const operator = await createUser(t, 'operator');
    const viewer = await createUser(t, 'viewer');
    await t.http.get('/api/v1/settings/alert-policy').set(bearer(operator.token)).expect(200);
    await t.http.get('/api/v1/settings/acme-cas').set(bearer(operator.token)).expect(200);
    await t.http.get('/api/v1/settings/acme-cas').set(bearer(viewer.token)).expect(403);
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(operator.token)).send({ lifetimeAware: true }).expect(403);
    await t.http.put('/api/v1/settings/acme-cas').set(bearer(operator.token)).send([]).expect(403);
    // Permission before the body: a malformed body from an operator is still 403.
    await t.http.put('/api/v1/settings/acme-cas').set(bearer(operator.token)).send({ bad: 1 }).expect(403);
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(operator.token)).send({ lifetimeFraction: 7 }).expect(403);
  });
});

describe('lifetime-aware thresholds in the alert job', () => {
  let t: TestApp;
  let admin: string;
  let smtp: TestSmtpServer;
  beforeEach(async () => {
    t = await createTestApp();
    admin = await login(t);
    smtp = await startSmtpServer();
    const mail = mailSettingsFor(smtp);
    await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mail).expect(200);
  });
  afterEach(async () => {
    await smtp.close();
    await t.close();
  });

  /** A certificate of `lifetime` days on a manual endpoint, `remaining` days (and an hour) from its notAfter. */
  async function certificate(name: string, lifetime: number, remaining: number): Promise<void> {
    const notAfter = new Date(Math.floor((t.clock.now().getTime() + remaining * DAY + HOUR) / 1000) * 1000);
    const minted = await mintCertificate({ subject: `CN=${name}`, notBefore: new Date(notAfter.getTime() - lifetime * DAY), notAfter });
    await manualEndpointWith(t, admin, name, minted.pem);
  }

  const runAlerts = async () =>
    (
      await t.http
        .post('/api/v1/alerts/run')
        .set(bearer(await login(t)))
        .expect(200)
    ).body as { alertsSent: number };
  const buckets = async () =>
    t.app
      .get(DataSource)
      .query<{ bucket: number }[]>(`SELECT bucket FROM notification_deliveries WHERE event_type = 'cert_expiring' ORDER BY bucket DESC`);

  it('is off by default: a 6-day certificate 5 days out is in the 7 bucket', async () => {
    await certificate('six.example.com', 6, 5);
    expect(await runAlerts()).toMatchObject({ alertsSent: 1 });
    expect(await buckets()).toEqual([{ bucket: 7 }]);
  });

  it('with lifetimeAware, records the effective thresholds as buckets and sends nothing before them', async () => {
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send({ lifetimeAware: true }).expect(200);
    await certificate('six.example.com', 6, 5);
    await certificate('forty-seven.example.com', 47, 15);
    await certificate('year.example.com', 398, 29);
    expect(await runAlerts()).toMatchObject({ alertsSent: 2 });
    // 47 days: 16 instead of 30; 398 days: 30 as configured; 6 days: nothing yet (2 and 1).
    expect(await buckets()).toEqual([{ bucket: 30 }, { bucket: 16 }]);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual([
      'Certificate for forty-seven.example.com expires in 15 days',
      'Certificate for year.example.com expires in 29 days',
    ]);

    t.clock.advance(3 * DAY);
    expect(await runAlerts()).toMatchObject({ alertsSent: 2 });
    // Six: 2 days remaining, the 2 bucket; forty-seven: 12 days, the 14 bucket.
    expect(await buckets()).toEqual([{ bucket: 30 }, { bucket: 16 }, { bucket: 14 }, { bucket: 2 }]);
  });

  it('keeps the expiring list and the dashboard on plain days', async () => {
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send({ lifetimeAware: true }).expect(200);
    await certificate('six.example.com', 6, 5);
    const dashboard = (await t.http.get('/api/v1/dashboard').set(bearer(admin)).expect(200)).body as {
      counts: { expiringWithin: { days: number; count: number }[] };
    };
    expect(dashboard.counts.expiringWithin).toEqual([
      { days: 30, count: 1 },
      { days: 14, count: 1 },
      { days: 7, count: 1 },
      { days: 1, count: 0 },
    ]);
    const expiring = (await t.http.get('/api/v1/certificates/expiring').query({ days: 7 }).set(bearer(admin)).expect(200))
      .body as unknown[];
    expect(expiring).toHaveLength(1);
  });
});
