import { createHash, randomBytes, randomUUID } from 'node:crypto';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { PROMETHEUS_CONTENT_TYPE } from '../src/modules/metrics/prometheus-text';
import { DAY, HOUR } from './support/fake-clock';
import { hostScanResult } from './support/scan-results';
import { startSmtpServer } from './support/smtp';
import { bearer, createScanner, createTestApp, createUser, defaultScannerCredentials, login, type TestApp } from './support/test-app';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const seconds = (date: Date) => date.getTime() / 1000;

interface Scrape {
  text: string;
  families: Map<string, ParsedFamily>;
}

const LINK_FAMILIES = ['certkeeper_certificate_not_after_seconds', 'certkeeper_certificate_not_before_seconds'];
const ENDPOINT_FAMILIES = ['certkeeper_endpoint_last_scan_timestamp_seconds', 'certkeeper_endpoint_scan_success'];

describe('GET /metrics', () => {
  let t: TestApp;
  let admin: string;
  let operator: string;
  let now: Date;
  let scannerToken: string;

  const scrape = async (token = operator, app = t): Promise<Scrape> => {
    const response = await app.http.get('/metrics').set(bearer(token)).expect(200);
    expect(response.headers['content-type']).toBe(PROMETHEUS_CONTENT_TYPE);
    const families = new Map(parsePrometheusTextFormat(response.text).map((family) => [family.name, family]));
    // Every family once: the parser would merge nothing, so a repeated name would show up here.
    expect(families.size).toBe(parsePrometheusTextFormat(response.text).length);
    return { text: response.text, families };
  };

  const samples = (s: Scrape, name: string): ParsedSample[] => s.families.get(name)?.metrics ?? [];
  const withLabels = (s: Scrape, name: string, labels: Record<string, string>) =>
    samples(s, name).filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));

  const createEndpoint = async (body: Record<string, unknown>) =>
    ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;

  const mint = (cn: string, notAfterOffset: number, notBeforeOffset = -30 * DAY) =>
    mintCertificate({
      subject: `CN=${cn}`,
      notBefore: new Date(now.getTime() + notBeforeOffset),
      notAfter: new Date(now.getTime() + notAfterOffset),
    });

  const upload = async (endpointId: string, minted: MintedCertificate, query: Record<string, string> = {}) => {
    const response = await t.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .query(query)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
    expect([200, 201]).toContain(response.status);
  };

  const postResults = async (results: unknown[]) => {
    const response = await t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(200);
    for (const outcome of (response.body as { results: { status: string }[] }).results) expect(outcome.status).toBe('accepted');
  };

  beforeAll(async () => {
    t = await createTestApp();
    // Whole seconds, as certificates store them.
    t.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
    now = t.clock.now();
    admin = await login(t);
    operator = (await createUser(t, 'operator')).token;
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('refuses a request without a token or with a garbage token (401), a viewer and a scanner (403)', async () => {
      await t.http.get('/metrics').expect(401);
      await t.http.get('/metrics').set('Authorization', 'Bearer garbage').expect(401);
      const viewer = await createUser(t, 'viewer');
      await t.http.get('/metrics').set(bearer(viewer.token)).expect(403);
      const scanner = await createScanner(t);
      await t.http.get('/metrics').set(bearer(scanner.token)).expect(403);
    });

    it('answers an operator and an admin with the Prometheus text format, at /metrics only', async () => {
      await scrape(operator);
      await scrape(admin);
      await t.http.get('/api/v1/metrics').set(bearer(admin)).expect(404);
    });

    it('answers an operator API key, as a scrape configuration would use', async () => {
      const key = (
        (await t.http.post('/api/v1/me/api-keys').set(bearer(operator)).send({ name: 'prometheus' }).expect(201)).body as { key: string }
      ).key;
      await scrape(key);
    });
  });

  describe('inventory series', () => {
    const ids: Record<string, string> = {};
    const certs: Record<string, MintedCertificate> = {};
    const WEIRD_NAME = 'quote " back\\slash\nsecond line';
    let scannedAt: Date;
    let failedAt: Date;

    beforeAll(async () => {
      ids.replaced = await createEndpoint({ name: 'metrics replaced', type: 'manual' });
      certs.old = await mint('old.metrics.test', 10 * DAY);
      certs.new = await mint('new.metrics.test', 90 * DAY);
      await upload(ids.replaced, certs.old);
      await upload(ids.replaced, certs.new); // replace=true by default: `old` becomes historical

      ids.twoCurrent = await createEndpoint({ name: 'metrics two current', type: 'manual' });
      certs.signing = await mint('signing.metrics.test', 200 * DAY, -400 * DAY);
      certs.expired = await mint('expired.metrics.test', -3 * DAY, -100 * DAY);
      await upload(ids.twoCurrent, certs.signing, { certUse: 'signing', replace: 'false' });
      await upload(ids.twoCurrent, certs.expired, { replace: 'false' });

      ids.weird = await createEndpoint({ name: WEIRD_NAME, type: 'manual' });
      certs.weird = await mint('weird.metrics.test', 5 * DAY);
      await upload(ids.weird, certs.weird);

      ids.scanned = await createEndpoint({ name: 'metrics scanned', type: 'host', dnsName: 'scanned.metrics.test' });
      certs.scanned = await mint('scanned.metrics.test', 45 * DAY);
      scannedAt = new Date(now.getTime() - 2 * HOUR + 250);
      await postResults([hostScanResult(ids.scanned, [certs.scanned], scannedAt)]);

      ids.failing = await createEndpoint({ name: 'metrics failing', type: 'host', dnsName: 'failing.metrics.test' });
      failedAt = new Date(now.getTime() - HOUR);
      await postResults([
        hostScanResult(ids.failing, [], failedAt, {
          success: false,
          error: 'connection refused',
          resolvedIp: null,
          tlsVersion: null,
          cipherSuite: null,
        }),
      ]);

      ids.neverScanned = await createEndpoint({ name: 'metrics never scanned', type: 'host', dnsName: 'never.metrics.test' });
    });

    it('has every current link exactly once, with its notAfter, notBefore and labels, and no historical link', async () => {
      const s = await scrape();
      const expected = [
        { endpoint: 'replaced', name: 'metrics replaced', type: 'manual', use: 'manual', cert: 'new', cn: 'new.metrics.test' },
        {
          endpoint: 'twoCurrent',
          name: 'metrics two current',
          type: 'manual',
          use: 'signing',
          cert: 'signing',
          cn: 'signing.metrics.test',
        },
        { endpoint: 'twoCurrent', name: 'metrics two current', type: 'manual', use: 'manual', cert: 'expired', cn: 'expired.metrics.test' },
        { endpoint: 'weird', name: WEIRD_NAME, type: 'manual', use: 'manual', cert: 'weird', cn: 'weird.metrics.test' },
        { endpoint: 'scanned', name: 'metrics scanned', type: 'host', use: 'tls', cert: 'scanned', cn: 'scanned.metrics.test' },
      ];
      for (const family of LINK_FAMILIES) {
        expect(s.families.get(family)?.type).toBe('GAUGE');
        expect(
          samples(s, family)
            .map((sample) => sample.labels)
            .sort((a, b) => `${a?.endpoint_id}${a?.cert_use}`.localeCompare(`${b?.endpoint_id}${b?.cert_use}`)),
        ).toEqual(
          expected
            .map((e) => ({
              endpoint_id: ids[e.endpoint],
              endpoint_name: e.name,
              endpoint_type: e.type,
              cert_use: e.use,
              fingerprint: sha256(certs[e.cert].der),
              common_name: e.cn,
            }))
            .sort((a, b) => `${a.endpoint_id}${a.cert_use}`.localeCompare(`${b.endpoint_id}${b.cert_use}`)),
        );
      }
      for (const e of expected) {
        const labels = { endpoint_id: ids[e.endpoint], cert_use: e.use, fingerprint: sha256(certs[e.cert].der) };
        const [notAfter] = withLabels(s, 'certkeeper_certificate_not_after_seconds', labels);
        const [notBefore] = withLabels(s, 'certkeeper_certificate_not_before_seconds', labels);
        expect(Number(notAfter.value)).toBe(seconds(certs[e.cert].certificate.notAfter));
        expect(Number(notBefore.value)).toBe(seconds(certs[e.cert].certificate.notBefore));
      }
      expect(withLabels(s, 'certkeeper_certificate_not_after_seconds', { fingerprint: sha256(certs.old.der) })).toEqual([]);
    });

    it('agrees with GET /certificates/active row for row', async () => {
      const s = await scrape();
      const active = (await t.http.get('/api/v1/certificates/active').query({ limit: 5000 }).set(bearer(admin)).expect(200)).body as {
        endpointId: string;
        certUse: string;
        fingerprint: string;
        notAfter: string;
      }[];
      expect(samples(s, 'certkeeper_certificate_not_after_seconds')).toHaveLength(active.length);
      for (const row of active) {
        const matches = withLabels(s, 'certkeeper_certificate_not_after_seconds', {
          endpoint_id: row.endpointId,
          cert_use: row.certUse,
          fingerprint: row.fingerprint,
        });
        expect(matches.map((m) => Number(m.value))).toEqual([seconds(new Date(row.notAfter))]);
      }
    });

    it('escapes quotes, backslashes and line feeds in label values', async () => {
      const s = await scrape();
      expect(s.text).toContain(`endpoint_id="${ids.weird}",endpoint_name="quote \\" back\\\\slash\\nsecond line",`);
      // One sample per line: the line feed in the name did not break the line.
      for (const line of s.text.split('\n'))
        expect(line === '' || line.startsWith('#') || /^[a-zA-Z_:][a-zA-Z0-9_:]*[{ ]/.test(line)).toBe(true);
      expect(withLabels(s, 'certkeeper_certificate_not_after_seconds', { endpoint_id: ids.weird })[0].labels?.endpoint_name).toBe(
        WEIRD_NAME,
      );
    });

    it('reports the last scan and its outcome of every scanned endpoint, and nothing for the others', async () => {
      const s = await scrape();
      for (const family of ENDPOINT_FAMILIES) {
        expect(s.families.get(family)?.type).toBe('GAUGE');
        expect(
          samples(s, family)
            .map((sample) => sample.labels?.endpoint_id)
            .sort(),
        ).toEqual([ids.scanned, ids.failing].sort());
      }
      const endpoint = (id: string, name: string) => ({ endpoint_id: id, endpoint_name: name, endpoint_type: 'host' });
      expect(samples(s, 'certkeeper_endpoint_scan_success')).toEqual(
        expect.arrayContaining([
          { labels: endpoint(ids.scanned, 'metrics scanned'), value: '1' },
          { labels: endpoint(ids.failing, 'metrics failing'), value: '0' },
        ]),
      );
      expect(samples(s, 'certkeeper_endpoint_last_scan_timestamp_seconds')).toEqual(
        expect.arrayContaining([
          { labels: endpoint(ids.scanned, 'metrics scanned'), value: String(seconds(scannedAt)) },
          { labels: endpoint(ids.failing, 'metrics failing'), value: String(seconds(failedAt)) },
        ]),
      );
    });

    it('follows the inventory: a recovered endpoint reads 1, a deleted endpoint disappears', async () => {
      const recoveredAt = new Date(now.getTime() - 30 * 60_000);
      await postResults([hostScanResult(ids.failing, [certs.scanned], recoveredAt)]);
      await t.http.delete(`/api/v1/endpoints/${ids.twoCurrent}`).set(bearer(admin)).expect(204);
      const s = await scrape();
      expect(withLabels(s, 'certkeeper_endpoint_scan_success', { endpoint_id: ids.failing }).map((m) => m.value)).toEqual(['1']);
      expect(withLabels(s, 'certkeeper_endpoint_last_scan_timestamp_seconds', { endpoint_id: ids.failing }).map((m) => m.value)).toEqual([
        String(seconds(recoveredAt)),
      ]);
      for (const family of LINK_FAMILIES) expect(withLabels(s, family, { endpoint_id: ids.twoCurrent })).toEqual([]);
      expect(s.text).not.toContain(ids.twoCurrent);
      // The certificate now current on two endpoints is two series.
      expect(withLabels(s, 'certkeeper_certificate_not_after_seconds', { fingerprint: sha256(certs.scanned.der) })).toHaveLength(2);
    });

    it("reports each scanner's last contact by name, and nothing for a scanner never seen", async () => {
      const idle = `idle-${randomBytes(3).toString('hex')}`;
      await createScanner(t, idle);
      const s = await scrape();
      expect(s.families.get('certkeeper_scanner_last_seen_timestamp_seconds')?.type).toBe('GAUGE');
      const seen = samples(s, 'certkeeper_scanner_last_seen_timestamp_seconds');
      expect(seen).toContainEqual({ labels: { scanner: 'default' }, value: String(seconds(now)) });
      expect(seen.filter((sample) => sample.labels?.scanner === idle)).toEqual([]);
    });
  });

  describe('HTTP and process series', () => {
    const requests = (s: Scrape, labels: Record<string, string>) =>
      withLabels(s, 'certkeeper_http_requests_total', labels).reduce((sum, sample) => sum + Number(sample.value), 0);

    it('counts requests by route template, never by raw path, with guard refusals and unmatched routes', async () => {
      const id = await createEndpoint({ name: 'metrics http', type: 'manual' });
      const missing = randomUUID();
      const before = await scrape();
      await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200);
      await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200);
      await t.http.get(`/api/v1/endpoints/${missing}`).set(bearer(admin)).expect(404);
      await t.http.get(`/api/v1/endpoints/${id}`).expect(401);
      await t.http.get(`/api/v1/no-such-route/${missing}`).set(bearer(admin)).expect(404);
      const calendarToken = randomBytes(32).toString('base64url');
      await t.http.get(`/api/v1/calendar/u/${calendarToken}/certkeeper.ics`).expect(404);
      const after = await scrape();

      const route = '/api/v1/endpoints/:id';
      const delta = (labels: Record<string, string>) => requests(after, labels) - requests(before, labels);
      expect(delta({ method: 'GET', route, status: '200' })).toBe(2);
      expect(delta({ method: 'GET', route, status: '404' })).toBe(1);
      expect(delta({ method: 'GET', route, status: '401' })).toBe(1);
      expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(delta({ method: 'GET', route: '/api/v1/calendar/u/:token/*file', status: '404' })).toBe(1);
      // The scrape itself, by its own template.
      expect(requests(after, { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThan(0);
      expect(after.text).not.toContain(missing);
      expect(after.text).not.toContain(calendarToken);
      expect(after.text).not.toMatch(new RegExp(`route="[^"]*${id}`));

      // The parser drops labelled histograms' counts, so these lines are read as text.
      expect(after.families.get('certkeeper_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
      const histogramLine = (suffix: string, labels: string) =>
        Number(new RegExp(`^certkeeper_http_request_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, 'm').exec(after.text)?.[1]);
      const labels = `method="GET",route="${route.replace(/[/:]/g, '\\$&')}"`;
      expect(histogramLine('count', labels)).toBeGreaterThanOrEqual(4);
      expect(histogramLine('bucket', `le="\\+Inf",${labels}`)).toBe(histogramLine('count', labels));
    });

    it('exposes the alert counters and the process defaults', async () => {
      const s = await scrape();
      for (const name of ['certkeeper_alerts_sent_total', 'certkeeper_alerts_failed_total']) {
        expect(s.families.get(name)?.type).toBe('COUNTER');
        expect(samples(s, name)).toEqual([{ value: '0' }]);
      }
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_start_time_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(s.families.has(name)).toBe(true);
      }
    });

    it('keeps two applications in one process apart', async () => {
      const other = await createTestApp();
      try {
        const otherAdmin = await login(other);
        const marker = randomUUID();
        await other.http.get(`/api/v1/endpoints/${marker}`).set(bearer(otherAdmin)).expect(404);
        const mine = await scrape();
        const theirs = await scrape(otherAdmin, other);
        const route = { method: 'GET', route: '/api/v1/endpoints/:id', status: '404' };
        expect(requests(theirs, route)).toBe(1);
        expect(requests(mine, route)).toBeGreaterThanOrEqual(1);
        expect(samples(theirs, 'certkeeper_certificate_not_after_seconds')).toEqual([]);
        expect(theirs.families.has('process_cpu_user_seconds_total')).toBe(true);
      } finally {
        await other.close();
      }
    });
  });
  describe('alert counters', () => {
    it('count the deliveries the SMTP server refused, then those it accepted, as the job reports them', async () => {
      const smtp = await startSmtpServer();
      try {
        await t.http
          .put('/api/v1/settings/mail')
          .set(bearer(admin))
          .send({ enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' })
          .expect(200);
        const run = async () =>
          (await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200)).body as { alertsSent: number; failed: number };
        const counters = async () => {
          const s = await scrape();
          return {
            sent: Number(samples(s, 'certkeeper_alerts_sent_total')[0].value),
            failed: Number(samples(s, 'certkeeper_alerts_failed_total')[0].value),
          };
        };

        smtp.failing = true;
        const refused = await run();
        expect(refused.failed).toBeGreaterThan(0);
        expect(await counters()).toEqual({ sent: 0, failed: refused.failed });

        smtp.failing = false;
        const delivered = await run();
        expect(delivered).toMatchObject({ alertsSent: refused.failed, failed: 0 });
        expect(await counters()).toEqual({ sent: delivered.alertsSent, failed: refused.failed });
      } finally {
        await smtp.close();
      }
    });
  });
});
