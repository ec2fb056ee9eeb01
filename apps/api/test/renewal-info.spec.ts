import { parseOutboundDeny } from '@certkeeper/net';
import { windowBody } from '@certkeeper/net/testing';
import { DAY, HOUR, MINUTE } from './support/fake-clock';
import { certIdOf, fingerprintOf, issuingCa, renewalInfoWorld, type RenewalInfoWorld } from './support/renewal-info-world';
import { bearer } from './support/test-app';

interface RenewalInfo {
  caName: string;
  windowStart: string;
  windowEnd: string;
  explanationUrl: string | null;
  checkedAt: string;
  nextCheckAt: string;
}

const renewalInfoOf = async (w: RenewalInfoWorld, fingerprint: string): Promise<RenewalInfo | null> =>
  (
    (
      await w.t.http
        .get(`/api/v1/certificates/${fingerprint}`)
        .set(bearer(await w.token()))
        .expect(200)
    ).body as { renewalInfo: RenewalInfo | null }
  ).renewalInfo;

/** The endpoints showing `code` after the hourly findings pass (run with check-revocation), by name. */
const showing = async (w: RenewalInfoWorld, code: string): Promise<string[]> => {
  const token = await w.token();
  await w.t.http.post('/api/v1/maintenance/tasks/check-revocation/run').set(bearer(token)).expect(200);
  const list = await w.t.http.get(`/api/v1/endpoints?finding=${code}&limit=500`).set(bearer(token)).expect(200);
  return (list.body as { items: { name: string }[] }).items.map((endpoint) => endpoint.name);
};

const overdueCount = async (w: RenewalInfoWorld): Promise<number> =>
  (
    (
      await w.t.http
        .get('/api/v1/dashboard')
        .set(bearer(await w.token()))
        .expect(200)
    ).body as { counts: { renewalOverdue: number } }
  ).counts.renewalOverdue;

/** The maintenance task refresh-renewal-info against local ACME servers (docs/api-contract.md section 15). */
describe('ACME renewal information', () => {
  let w: RenewalInfoWorld;
  afterEach(() => w?.close());

  it('stores the window of each current, unexpired certificate with a key identifier, and asks again only after Retry-After', async () => {
    w = await renewalInfoWorld();
    const ca = await w.acmeServer();
    await w.useCas([{ name: 'Local CA', server: ca }]);
    const now = w.t.clock.now();
    const start = new Date(now.getTime() + DAY);
    const end = new Date(now.getTime() + 3 * DAY);
    ca.reply = () => ({ body: windowBody(start, end, 'https://ca.example/why'), retryAfter: '3600' });
    // A serial whose first bit is set: its certID keeps the 00 octet.
    const first = await w.currentCertificate('first.example.com', { serialNumber: '87654321' });
    const second = await w.currentCertificate('second.example.com');
    await w.currentCertificate('expired.example.com', { days: -1 });

    expect(await w.refresh()).toEqual({
      name: 'refresh-renewal-info',
      outcome: 'succeeded',
      counts: { certificates: 2, requests: 2, windows: 2, notThisCa: 0, failed: 0 },
    });
    expect(ca.requests.map((r) => r.certId).sort()).toEqual([certIdOf(first), certIdOf(second)].sort());
    expect(certIdOf(first)).toMatch(/\.AIdlQyE$/);
    expect(await renewalInfoOf(w, fingerprintOf(first))).toEqual({
      caName: 'Local CA',
      windowStart: start.toISOString(),
      windowEnd: end.toISOString(),
      explanationUrl: 'https://ca.example/why',
      checkedAt: now.toISOString(),
      nextCheckAt: new Date(now.getTime() + HOUR).toISOString(),
    });
    // A window ahead is no alert, and not overdue: the one e-mail is the expired certificate's.
    await w.runAlerts();
    expect(w.smtp.messages.map((m) => m.subject)).toEqual(['Certificate for expired.example.com has expired']);
    expect(await overdueCount(w)).toBe(0);

    w.t.clock.advance(30 * MINUTE);
    expect((await w.refresh()).counts).toMatchObject({ certificates: 0, requests: 0 });
    w.t.clock.advance(31 * MINUTE);
    expect((await w.refresh()).counts).toMatchObject({ certificates: 2, requests: 2 });
    // The directory was read once and kept.
    expect(ca.directoryReads).toBe(1);
  }, 60_000);

  it('clamps Retry-After to 60 s .. 24 h and uses 6 h when absent', async () => {
    w = await renewalInfoWorld();
    const ca = await w.acmeServer();
    await w.useCas([{ name: 'Local CA', server: ca }]);
    const minted = await w.currentCertificate('clamp.example.com');
    const now = w.t.clock.now().getTime();
    const nextCheck = async (retryAfter: string | undefined) => {
      ca.reply = () => ({ body: windowBody(new Date(now), new Date(now + 5 * DAY)), retryAfter });
      w.t.clock.advance(25 * HOUR);
      await w.refresh();
      const info = await renewalInfoOf(w, fingerprintOf(minted));
      return (new Date(info!.nextCheckAt).getTime() - new Date(info!.checkedAt).getTime()) / 1000;
    };
    expect(await nextCheck('1')).toBe(60);
    expect(await nextCheck('9999999')).toBe(24 * 3600);
    expect(await nextCheck(undefined)).toBe(6 * 3600);
  }, 60_000);

  it('sends one renewal_overdue e-mail for an ended window and for one the CA moves into the past, never again', async () => {
    w = await renewalInfoWorld();
    const ca = await w.acmeServer();
    await w.useCas([{ name: 'Local CA', server: ca }]);
    const now = w.t.clock.now().getTime();
    const ended = await w.currentCertificate('ended.example.com');
    const moved = await w.currentCertificate('moved.example.com');
    const windows = new Map([
      [certIdOf(ended), windowBody(new Date(now - 3 * DAY), new Date(now - DAY), 'https://ca.example/incident')],
      [certIdOf(moved), windowBody(new Date(now + 10 * DAY), new Date(now + 12 * DAY))],
    ]);
    ca.reply = (certId) => ({ body: windows.get(certId) });

    await w.refresh();
    expect(await w.runAlerts()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
    expect(w.smtp.messages).toHaveLength(1);
    const [mail] = w.smtp.messages;
    expect(mail.subject).toBe(
      `Certificate for ended.example.com is overdue for renewal: its CA asked for it by ${utcMinute(new Date(now - DAY))}`,
    );
    expect(mail.text).toContain('Why: https://ca.example/incident');
    expect(mail.text).toContain('Used by: ended.example.com');
    expect(await overdueCount(w)).toBe(1);
    // The endpoint says so too, as the finding renewal_overdue (docs/api-contract.md section 18).
    expect(await showing(w, 'renewal_overdue')).toEqual(['ended.example.com']);

    // The CA asks for early renewal of the other one: its window now lies in the past.
    windows.set(certIdOf(moved), windowBody(new Date(now - 2 * DAY), new Date(now - HOUR)));
    w.t.clock.advance(6 * HOUR + MINUTE);
    await w.refresh();
    expect(await w.runAlerts()).toEqual({ alertsSent: 1, alreadySent: 1, failed: 0, failures: [] });
    expect(w.smtp.messages.map((m) => m.subject.split(' ')[2])).toEqual(['ended.example.com', 'moved.example.com']);
    expect(await overdueCount(w)).toBe(2);

    // Moved again, still ended: once per certificate.
    windows.set(certIdOf(moved), windowBody(new Date(now - 3 * DAY), new Date(now - 2 * HOUR)));
    w.t.clock.advance(6 * HOUR + MINUTE);
    await w.refresh();
    expect(await w.runAlerts()).toEqual({ alertsSent: 0, alreadySent: 2, failed: 0, failures: [] });
  }, 60_000);

  it('learns the CA of an issuer key id: a CA answering 404 is not asked for it again for 24 hours', async () => {
    w = await renewalInfoWorld();
    const other = await w.acmeServer();
    other.reply = () => ({ status: 404 });
    const ours = await w.acmeServer();
    await w.useCas([
      { name: 'Other CA', server: other },
      { name: 'Our CA', server: ours },
    ]);
    for (const n of [1, 2, 3]) await w.currentCertificate(`learnt-${n}.example.com`);
    expect((await w.refresh()).counts).toEqual({ certificates: 3, requests: 4, windows: 3, notThisCa: 1, failed: 0 });
    expect([other.requests.length, ours.requests.length]).toEqual([1, 3]);
    w.t.clock.advance(6 * HOUR + MINUTE);
    await w.refresh();
    expect([other.requests.length, ours.requests.length]).toEqual([1, 6]);

    // An issuer no configured CA knows: one 404 per CA, then nothing until 24 hours have passed.
    const unknownIssuer = await issuingCa('Unknown CA');
    const unknown = await w.currentCertificate('unknown-1.example.com', { issuer: unknownIssuer });
    await w.currentCertificate('unknown-2.example.com', { issuer: unknownIssuer });
    const unknownKeyId = `${certIdOf(unknown).split('.')[0]}.`;
    const answer = ours.reply;
    ours.reply = (certId) => (certId.startsWith(unknownKeyId) ? { status: 404 } : answer(certId));
    w.t.clock.advance(HOUR);
    await w.refresh();
    expect([other.requests.length, ours.requests.length]).toEqual([2, 7]);
    w.t.clock.advance(HOUR);
    expect((await w.refresh()).counts).toMatchObject({ requests: 0 });
    w.t.clock.advance(23 * HOUR);
    await w.refresh();
    expect(other.requests.length).toBe(3);
  }, 60_000);

  it('a CA past the 10 s deadline costs one deadline, and the next CA answers and is learnt', async () => {
    w = await renewalInfoWorld();
    const slow = await w.acmeServer();
    slow.reply = () => ({ delayMs: 15_000, body: windowBody(new Date(), new Date()) });
    const ours = await w.acmeServer();
    await w.useCas([
      { name: 'Slow CA', server: slow },
      { name: 'Our CA', server: ours },
    ]);
    const minted = await w.currentCertificate('slow-1.example.com');
    await w.currentCertificate('slow-2.example.com');
    const started = Date.now();
    expect((await w.refresh()).counts).toEqual({ certificates: 2, requests: 3, windows: 2, notThisCa: 0, failed: 1 });
    expect(Date.now() - started).toBeLessThan(14_000);
    expect(slow.requests).toHaveLength(1);
    expect((await renewalInfoOf(w, fingerprintOf(minted)))?.caName).toBe('Our CA');
    expect(w.t.logs.some((line) => line.level === 'warn' && String(line.msg).includes('Slow CA not read this run'))).toBe(true);
  }, 60_000);

  it('a body over 64 KiB is not read and stores nothing; the CA is not asked again in that run', async () => {
    w = await renewalInfoWorld();
    const huge = await w.acmeServer();
    const window = windowBody(new Date(), new Date(Date.now() + DAY)) as Record<string, unknown>;
    huge.reply = () => ({ body: { ...window, padding: 'x'.repeat(70 * 1024) } });
    await w.useCas([{ name: 'Huge CA', server: huge }]);
    const minted = await w.currentCertificate('huge.example.com');
    await w.currentCertificate('huge-2.example.com');
    await w.currentCertificate('huge-3.example.com');
    expect((await w.refresh()).counts).toEqual({ certificates: 3, requests: 1, windows: 0, notThisCa: 0, failed: 1 });
    expect(await renewalInfoOf(w, fingerprintOf(minted))).toBeNull();

    // Just under the cap is read, on the next run.
    huge.reply = () => ({ body: { ...window, padding: 'x'.repeat(60 * 1024) } });
    expect((await w.refresh()).counts).toMatchObject({ requests: 3, windows: 3 });
  }, 60_000);

  it('OUTBOUND_DENY keeps every request from a denied address', async () => {
    const denied = parseOutboundDeny('127.0.0.0/8');
    if (!denied.ok) throw new Error(denied.problem);
    w = await renewalInfoWorld({ outboundDeny: denied.value });
    const ca = await w.acmeServer();
    await w.useCas([{ name: 'Local CA', server: ca }]);
    await w.currentCertificate('denied.example.com');
    expect(await w.refresh()).toMatchObject({ outcome: 'succeeded', counts: { requests: 1, failed: 1, windows: 0 } });
    expect([ca.directoryReads, ca.requests.length]).toEqual([0, 0]);
  }, 60_000);

  it('asks nothing and alerts nothing while the alert policy has renewalInfo off', async () => {
    w = await renewalInfoWorld();
    const ca = await w.acmeServer();
    ca.reply = () => ({ body: windowBody(new Date(Date.now() - 2 * DAY), new Date(Date.now() - DAY)) });
    await w.useCas([{ name: 'Local CA', server: ca }]);
    await w.currentCertificate('quiet.example.com');
    await w.refresh();
    await w.t.http
      .put('/api/v1/settings/alert-policy')
      .set(bearer(await w.token()))
      .send({ renewalInfo: false })
      .expect(200);
    w.t.clock.advance(7 * HOUR);
    expect((await w.refresh()).counts).toMatchObject({ requests: 0 });
    expect(await w.runAlerts()).toMatchObject({ alertsSent: 0 });
    expect(await overdueCount(w)).toBe(0);
  }, 60_000);
});

function utcMinute(instant: Date): string {
  return `${instant.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
