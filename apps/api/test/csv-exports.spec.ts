import { randomUUID } from 'node:crypto';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { parse } from 'csv-parse/sync';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { csvExportLimits } from '../src/common/http/csv/csv-export';
import { poolOf } from '../src/database/pool';
import { DAY } from './support/fake-clock';
import { startPausedDownload } from './support/paused-download';
import { hostScanResult } from './support/scan-results';
import { bearer, createTestApp, createUser, defaultScannerCredentials, login, type TestApp } from './support/test-app';

type Item = Record<string, unknown>;

/** The cell the contract asks for, computed here independently of the server's formatting. */
function expectedCell(value: unknown): string {
  const guard = (text: string) => (/^[=+\-@\t\r＝＋－＠]/.test(text) ? `'${text}` : text);
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return guard((value as string[]).join('; '));
  return guard(value as string);
}

const isNested = (value: unknown) =>
  (value !== null && typeof value === 'object' && !Array.isArray(value)) ||
  (Array.isArray(value) && value.some((element) => element !== null && typeof element === 'object'));

/**
 * CSV exports of the list routes (docs/api-contract.md section 11): parsed back with csv-parse and
 * compared row for row with the JSON list, with the same filters and permissions.
 */
describe('CSV exports', () => {
  let t: TestApp;
  let admin: string;
  let viewer: string;
  let scannerToken: string;
  let scannerId: string;
  let networkId: string;
  const endpointIds: Record<string, string> = {};

  const at = (offset: number) => new Date(t.clock.now().getTime() + offset);

  const createEndpoint = async (key: string, body: Record<string, unknown>) => {
    endpointIds[key] = ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
    return endpointIds[key];
  };
  const mint = (name: string, notAfterOffset: number): Promise<MintedCertificate> =>
    mintCertificate({
      subject: `CN=${name}`,
      sans: [name, `alt.${name}`],
      notBefore: new Date(Math.min(at(0).getTime(), at(notAfterOffset).getTime()) - 30 * DAY),
      notAfter: at(notAfterOffset),
    });
  const upload = async (endpointId: string, minted: MintedCertificate, certUse?: string) => {
    await t.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .query(certUse ? { certUse } : {})
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem)
      .expect(201);
  };
  const postResults = async (results: unknown[]) => {
    const response = await t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(200);
    for (const outcome of (response.body as { results: { status: string }[] }).results) expect(outcome.status).toBe('accepted');
  };

  const getCsv = (path: string, query: Record<string, unknown>, token = admin) =>
    t.http
      .get(path)
      .query({ ...query, format: 'csv' })
      .set(bearer(token));

  /** Fields whose JSON value is an object (null until there is one): left out of the CSV. */
  const OBJECT_FIELDS = ['samlMetadata', 'details', 'supersededBy'];
  // Fields of the interactive list only, never exported (docs/api-contract.md section 16).
  const LIST_ONLY_FIELDS = ['renewalNotDeployed'];

  /** The JSON list (every row, with the largest window) and the CSV export must be the same rows. */
  const expectSameRows = async (path: string, query: Record<string, unknown>, shape: 'page' | 'array', list: string) => {
    const limit = shape === 'page' ? 500 : 5000;
    const json = await t.http
      .get(path)
      .query({ ...query, limit })
      .set(bearer(admin))
      .expect(200);
    // An endpoint's findings export as their codes (docs/api-contract.md section 18).
    const items = (shape === 'page' ? (json.body as { items: Item[] }).items : (json.body as Item[])).map((item) =>
      Array.isArray(item.findings) ? { ...item, findings: (item.findings as { code: string }[]).map((f) => f.code) } : item,
    );
    if (shape === 'page') expect(items.length).toBe((json.body as { totalCount: number }).totalCount);
    else expect(items.length).toBe(Number(json.headers['x-total-count']));

    // A small window too: limit and offset are ignored by the export.
    const csv = await getCsv(path, { ...query, limit: 1, offset: 1 }).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const day = t.clock.now().toISOString().slice(0, 10);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="certkeeper-${list}-${day}.csv"`);
    expect(csv.text.endsWith('\r\n')).toBe(true);
    expect(
      csv.text
        .replace(/"[^"]*"/g, '')
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith('\r')),
    ).toBe(true);

    const [header, ...rows]: string[][] = parse(csv.text);
    const jsonFields = Object.keys(items[0] ?? {}).filter(
      (key) => !OBJECT_FIELDS.includes(key) && !LIST_ONLY_FIELDS.includes(key) && !items.some((item) => isNested(item[key])),
    );
    if (items.length > 0) expect(header).toEqual(jsonFields);
    expect(rows).toEqual(items.map((item) => header.map((column) => expectedCell(item[column]))));

    // Accept: text/csv asks for the same thing.
    const accepted = await t.http
      .get(path)
      .query(query)
      .set(bearer(admin))
      .set('Accept', 'text/csv')
      .expect(200)
      .expect('Content-Type', 'text/csv; charset=utf-8');
    expect(accepted.text).toBe(csv.text);
    return { header, rows, items };
  };

  beforeAll(async () => {
    t = await createTestApp();
    // Whole seconds, as certificates store them, so days remaining are exact.
    t.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
    admin = await login(t);
    viewer = (await createUser(t, 'viewer')).token;
    ({ id: scannerId, token: scannerToken } = await defaultScannerCredentials(t, admin));

    // Endpoints, some named to be evaluated by a spreadsheet, some with text that needs quoting.
    await createEndpoint('formula', { name: '=HYPERLINK("http://x")', type: 'host', dnsName: 'formula.csv.test', tags: ['env:prod'] });
    await createEndpoint('plus', { name: '+1', type: 'host', dnsName: 'plus.csv.test', tags: ['env:prod', 'team:a'] });
    await createEndpoint('minus', { name: '-1', type: 'manual', notes: 'line one\nline "two", with a comma' });
    await createEndpoint('at', { name: '@SUM(A1:A2)', type: 'saml', metadataUrl: 'https://idp.csv.test/metadata' });
    await createEndpoint('plain', { name: 'plain, "quoted" host', type: 'host', dnsName: 'plain.csv.test', port: 8443, enabled: false });
    await createEndpoint('tab', { name: '\ttabbed', type: 'manual', tags: ['=cmd|calc'] });

    // Certificates: current links expiring at different times, one expired.
    await upload(endpointIds.formula, await mint('formula.csv.test', 5 * DAY));
    await upload(endpointIds.plus, await mint('plus.csv.test', 40 * DAY));
    await upload(endpointIds.minus, await mint('minus.csv.test', -2 * DAY), 'manual');
    await upload(endpointIds.plain, await mint('plain.csv.test', 200 * DAY));

    // Scan history: two successful scans and a failure for one endpoint.
    const chain = [await mint('formula.csv.test', 90 * DAY)];
    await postResults([hostScanResult(endpointIds.formula, chain, at(-3 * 60_000))]);
    await postResults([hostScanResult(endpointIds.formula, chain, at(-2 * 60_000), { resolvedIp: '192.0.2.11' })]);
    await postResults([
      hostScanResult(endpointIds.formula, [], at(-60_000), {
        success: false,
        error: '=connection refused',
        resolvedIp: null,
        tlsVersion: null,
        cipherSuite: null,
      }),
    ]);

    // The discovery inbox, through a sweep the default scanner reports.
    networkId = (
      (
        await t.http
          .post('/api/v1/discovery/networks')
          .set(bearer(admin))
          .send({ name: 'csv-net', ranges: ['10.77.0.0/29'], ports: [443, 8443], scannerId })
          .expect(201)
      ).body as { id: string }
    ).id;
    const sweep = (await t.http.post(`/api/v1/discovery/networks/${networkId}/sweeps`).set(bearer(admin)).expect(202)).body as {
      id: string;
    };
    await t.http.post(`/api/v1/scanner/sweeps/${sweep.id}/start`).set(bearer(scannerToken)).expect(200);
    const [leafA, leafB] = await Promise.all([mint('a.sweep.csv.test', 30 * DAY), mint('b.sweep.csv.test', 3 * DAY)]);
    const finding = (address: string, port: number, leaf: MintedCertificate, reverseName: string | null) => ({
      address,
      port,
      reverseName,
      chain: [leaf.pem],
      tlsVersion: 'TLSv1.3',
      cipherSuite: 'TLS_AES_128_GCM_SHA256',
    });
    await t.http
      .post('/api/v1/scanner/sweep-reports')
      .set(bearer(scannerToken))
      .send({
        reports: [
          {
            reportId: randomUUID(),
            sweepId: sweep.id,
            addressesProbed: 8,
            final: true,
            error: null,
            findings: [
              finding('10.77.0.1', 443, leafA, 'host1.sweep.csv.test'),
              finding('10.77.0.2', 8443, leafB, null),
              finding('10.77.0.3', 443, leafA, null),
            ],
          },
        ],
      })
      .expect(200);
  });
  afterAll(() => t.close());

  it('exports the endpoint list, with its filters, row for row as the JSON list', async () => {
    const all = await expectSameRows('/api/v1/endpoints', {}, 'page', 'endpoints');
    expect(all.rows.length).toBe(6);
    expect(all.header).not.toContain('samlMetadata');
    const byName = (name: string) => all.rows.find((row) => row[all.header.indexOf('id')] === endpointIds[name])!;
    const name = all.header.indexOf('name');
    expect(byName('formula')[name]).toBe(`'=HYPERLINK("http://x")`);
    expect(byName('plus')[name]).toBe("'+1");
    expect(byName('minus')[name]).toBe("'-1");
    expect(byName('at')[name]).toBe("'@SUM(A1:A2)");
    expect(byName('tab')[name]).toBe("'\ttabbed");
    expect(byName('tab')[all.header.indexOf('tags')]).toBe("'=cmd|calc");
    expect(byName('plus')[all.header.indexOf('tags')]).toBe('env:prod; team:a');
    expect(byName('minus')[all.header.indexOf('notes')]).toBe('line one\nline "two", with a comma');
    expect(byName('plain')[all.header.indexOf('port')]).toBe('8443');
    expect(byName('plain')[all.header.indexOf('enabled')]).toBe('false');
    expect(byName('minus')[all.header.indexOf('dnsName')]).toBe('');
    // The soonest-expiring current certificate: formula's upload (5 days) rather than its scanned one (90 days).
    expect(byName('formula')[all.header.indexOf('daysRemaining')]).toBe('5');
    expect(byName('formula')[all.header.indexOf('soonestNotAfter')]).toBe(at(5 * DAY).toISOString());
    expect(byName('minus')[all.header.indexOf('daysRemaining')]).toBe('-2');
    expect(byName('at')[all.header.indexOf('daysRemaining')]).toBe('');
    expect(byName('at')[all.header.indexOf('soonestNotAfter')]).toBe('');

    expect((await expectSameRows('/api/v1/endpoints', { type: 'host' }, 'page', 'endpoints')).rows.length).toBe(3);
    expect((await expectSameRows('/api/v1/endpoints', { tag: ['team:a', 'nope'] }, 'page', 'endpoints')).rows.length).toBe(1);
    expect((await expectSameRows('/api/v1/endpoints', { enabled: 'false' }, 'page', 'endpoints')).rows.length).toBe(1);
    expect((await expectSameRows('/api/v1/endpoints', { has_error: 'true' }, 'page', 'endpoints')).rows.length).toBe(1);
    expect((await expectSameRows('/api/v1/endpoints', { q: 'CSV.TEST' }, 'page', 'endpoints')).rows.length).toBe(4);
    expect((await expectSameRows('/api/v1/endpoints', { q: 'no such thing' }, 'page', 'endpoints')).rows.length).toBe(0);
    const expiring = await expectSameRows('/api/v1/endpoints', { expires_within: 30, sort: 'daysRemaining' }, 'page', 'endpoints');
    expect(expiring.rows.map((row) => row[all.header.indexOf('id')])).toEqual([endpointIds.minus, endpointIds.formula]);
    const latest = await expectSameRows('/api/v1/endpoints', { sort: '-daysRemaining' }, 'page', 'endpoints');
    // Without a current certificate (at, tab): last, in either direction.
    const ids = latest.rows.map((row) => row[all.header.indexOf('id')]);
    expect(ids.slice(0, 4)).toEqual(['plain', 'plus', 'formula', 'minus'].map((key) => endpointIds[key]));
    expect(ids.slice(4).sort()).toEqual([endpointIds.at, endpointIds.tab].sort());
  });

  it('exports the certificate, active and expiring lists and the scan history as their JSON lists', async () => {
    const certificates = await expectSameRows('/api/v1/certificates', {}, 'array', 'certificates');
    expect(certificates.rows.length).toBeGreaterThanOrEqual(7);
    expect(certificates.header).toContain('daysRemaining');
    // A negative number is the server's own, not text: it stays a number.
    expect(certificates.rows.some((row) => row[certificates.header.indexOf('daysRemaining')] === '-2')).toBe(true);
    await expectSameRows('/api/v1/certificates', { expired: 'true' }, 'array', 'certificates');
    await expectSameRows('/api/v1/certificates', { q: 'sweep', isCa: 'false' }, 'array', 'certificates');

    const active = await expectSameRows('/api/v1/certificates/active', {}, 'array', 'certificates-active');
    expect(active.rows.length).toBe(5);
    expect(active.header.slice(0, 5)).toEqual(['endpointId', 'endpointName', 'endpointType', 'endpointTags', 'certUse']);
    expect((await expectSameRows('/api/v1/certificates/active', { type: 'manual' }, 'array', 'certificates-active')).rows.length).toBe(1);
    await expectSameRows('/api/v1/certificates/active', { tag: 'env:prod', certUse: 'tls' }, 'array', 'certificates-active');
    const expiring = await expectSameRows('/api/v1/certificates/expiring', { days: '10' }, 'array', 'certificates-expiring');
    expect(expiring.rows.length).toBe(2);
    await expectSameRows('/api/v1/certificates/expiring', {}, 'array', 'certificates-expiring');

    const history = await expectSameRows(`/api/v1/endpoints/${endpointIds.formula}/history`, {}, 'array', 'endpoint-history');
    expect(history.rows.length).toBe(3);
    expect(history.rows[0][history.header.indexOf('error')]).toBe("'=connection refused");
    expect((await expectSameRows(`/api/v1/endpoints/${endpointIds.minus}/history`, {}, 'array', 'endpoint-history')).rows).toEqual([]);
  });

  it('exports the discovery inbox and the audit log as their JSON lists', async () => {
    const inbox = await expectSameRows('/api/v1/discovery/inbox', {}, 'page', 'discovery-inbox');
    expect(inbox.rows.length).toBe(3);
    expect(inbox.header).toContain('hostnames');
    await expectSameRows('/api/v1/discovery/inbox', { networkId, status: 'new' }, 'page', 'discovery-inbox');
    expect((await expectSameRows('/api/v1/discovery/inbox', { q: 'host1' }, 'page', 'discovery-inbox')).rows.length).toBe(1);

    const audit = await expectSameRows('/api/v1/audit', {}, 'page', 'audit');
    expect(audit.rows.length).toBeGreaterThan(10);
    expect(audit.header).not.toContain('details');
    expect((await expectSameRows('/api/v1/audit', { action: 'endpoint:create' }, 'page', 'audit')).rows.length).toBe(6);
    await expectSameRows('/api/v1/audit', { targetId: endpointIds.plain }, 'page', 'audit');
  });

  const ROUTES = [
    '/api/v1/endpoints',
    '/api/v1/certificates',
    '/api/v1/certificates/active',
    '/api/v1/certificates/expiring',
    '/api/v1/discovery/inbox',
    '/api/v1/audit',
  ];

  it('refuses a format other than json or csv, and bad filters, with 400 as the JSON list does', async () => {
    const history = `/api/v1/endpoints/${endpointIds.formula}/history`;
    for (const path of [...ROUTES, history]) {
      await t.http.get(path).query({ format: 'xml' }).set(bearer(admin)).expect(400);
      await t.http
        .get(path)
        .query({ format: ['csv', 'csv'] })
        .set(bearer(admin))
        .expect(400);
      await t.http
        .get(path)
        .query({ format: 'json' })
        .set(bearer(admin))
        .set('Accept', 'text/csv')
        .expect(200)
        .expect('Content-Type', /json/);
      await t.http.get(path).query({ limit: '0' }).set(bearer(admin)).set('Accept', 'text/csv').expect(400);
    }
    const bad: [string, Record<string, string>][] = [
      ['/api/v1/endpoints', { type: 'router' }],
      ['/api/v1/endpoints', { has_error: 'maybe' }],
      ['/api/v1/certificates', { isCa: 'maybe' }],
      ['/api/v1/certificates/active', { certUse: 'nope' }],
      ['/api/v1/certificates/expiring', { days: '3651' }],
      ['/api/v1/discovery/inbox', { networkId: 'not-a-uuid' }],
      ['/api/v1/audit', { action: 'x'.repeat(101) }],
    ];
    for (const [path, query] of bad) {
      const json = await t.http.get(path).query(query).set(bearer(admin)).expect(400);
      const csv = await getCsv(path, query).expect(400).expect('Content-Type', 'text/plain; charset=utf-8');
      expect(csv.text).toBe(json.text);
    }
    await getCsv(`/api/v1/endpoints/${randomUUID()}/history`, {}).expect(404);
    await getCsv('/api/v1/endpoints/not-a-uuid/history', {}).expect(400);
  });

  it('needs the permission of the JSON list', async () => {
    for (const path of [...ROUTES, `/api/v1/endpoints/${endpointIds.formula}/history`]) {
      await t.http.get(path).query({ format: 'csv' }).expect(401);
      await t.http.get(path).set('Accept', 'text/csv').expect(401);
    }
    // A viewer has neither discovery:view nor audit:view.
    await getCsv('/api/v1/discovery/inbox', {}, viewer).expect(403);
    await getCsv('/api/v1/audit', {}, viewer).expect(403);
    await getCsv('/api/v1/endpoints', {}, viewer).expect(200);
  });

  it('names the download after the date of the application clock', async () => {
    const saved = t.clock.now();
    t.clock.set(new Date('2031-05-06T23:59:00Z'));
    try {
      const csv = await getCsv('/api/v1/endpoints', {}, await login(t)).expect(200);
      expect(csv.headers['content-disposition']).toBe('attachment; filename="certkeeper-endpoints-2031-05-06.csv"');
    } finally {
      t.clock.set(saved);
    }
  });

  it('quotes the line breaks a certificate carries in its common name, so no line of the file starts a formula', async () => {
    // Any scanned host chooses its certificate's subject: a line feed then a formula, a carriage
    // return then one, and a full-width equals sign.
    const subjects = ['CN=cn\\0A\\=1\\+2', 'CN=cr\\0D@SUM(A1)', 'CN=＝1\\+2'];
    for (const [index, subject] of subjects.entries()) {
      const endpointId = await createEndpoint(`linebreak-${index}`, { name: `line-break-${index}`, type: 'manual' });
      await upload(endpointId, await mintCertificate({ subject, notBefore: at(-DAY), notAfter: at(20 * DAY) }), 'manual');
    }

    const { header, rows } = await expectSameRows('/api/v1/certificates/active', { type: 'manual' }, 'array', 'certificates-active');
    const cells = (column: string) => rows.map((row) => row[header.indexOf(column)]);
    // Self-signed: the issuer's common name is the same text. Only the full-width sign starts a cell.
    const expected = ['cn\n=1+2', 'cr\r@SUM(A1)', "'＝1+2"];
    expect(cells('commonName')).toEqual(expect.arrayContaining(expected));
    expect(cells('issuerCommonName')).toEqual(expect.arrayContaining(expected));

    // Read as a spreadsheet reads it, taking a lone LF or CR as a line end too: the same rows.
    const csv = await getCsv('/api/v1/certificates/active', { type: 'manual' }).expect(200);
    expect(parse(csv.text, { record_delimiter: ['\r\n', '\n', '\r'] })).toEqual([header, ...rows]);
  });

  describe('a large export', () => {
    const ROWS = 30_000;
    let pool: Pool;
    let dataSource: DataSource;

    beforeAll(async () => {
      dataSource = t.app.get(DataSource);
      pool = poolOf(dataSource);
      await dataSource.query(
        `INSERT INTO endpoints (name, type, notes, tags, search_text)
         SELECT 'bulk-' || lpad(g::text, 6, '0'), 'manual', repeat('n', 120), ARRAY['bulk:yes', 'n:' || g], 'bulk-' || g
           FROM generate_series(1, $1::int) AS g`,
        [ROWS],
      );
    });

    /** Server backends of this test database still running an export query (not this one asking). */
    const exportBackends = async () =>
      dataSource.query<{ pid: number; state: string }[]>(
        `SELECT pid, state FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%ORDER BY e.name COLLATE certkeeper_natural, e.id%'
            AND state <> 'idle'`,
      );
    const checkedOut = () => pool.totalCount - pool.idleCount;
    const eventually = async (check: () => Promise<boolean> | boolean, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('condition not reached in time');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    /** The endpoint export, its client paused after the first chunk. */
    const startExport = () => startPausedDownload(`${t.baseUrl}/api/v1/endpoints?q=bulk`, { ...bearer(admin), Accept: 'text/csv' });

    it('streams every row', async () => {
      const csv = await getCsv('/api/v1/endpoints', { q: 'bulk' }).expect(200);
      const [header, ...rows]: string[][] = parse(csv.text);
      expect(rows.length).toBe(ROWS);
      expect(rows[0][header.indexOf('name')]).toBe('bulk-000001');
      expect(rows[ROWS - 1][header.indexOf('name')]).toBe(`bulk-${String(ROWS).padStart(6, '0')}`);
      await eventually(() => checkedOut() === 0);
    });

    it('stops the cursor and releases the connection when the client disconnects mid-export', async () => {
      const { req, first } = await startExport();
      expect(first.toString('utf8')).toMatch(/^id,name,type,/);
      // The export holds its connection while the client is not reading.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(checkedOut()).toBeGreaterThanOrEqual(1);
      req.destroy();

      await eventually(async () => checkedOut() === 0 && pool.waitingCount === 0 && (await exportBackends()).length === 0);
      expect(await exportBackends()).toEqual([]);
      // The API carries on: another export and a JSON list still work.
      await getCsv('/api/v1/endpoints', { q: 'bulk-00001' }).expect(200);
      await t.http.get('/api/v1/endpoints').set(bearer(admin)).expect(200);
      await eventually(() => checkedOut() === 0);
    });

    it('destroys the response when the database fails mid-export, and releases the connection', async () => {
      const { res, outcome } = await startExport();
      // The export's backend only: an idle pooled connection whose last query was a list page matches the text too.
      const terminated = await dataSource.query<{ ok: boolean }[]>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%ORDER BY e.name COLLATE certkeeper_natural, e.id%'
            AND state <> 'idle'`,
      );
      expect(terminated.length).toBe(1);
      res.resume();
      expect(await outcome).not.toBe('end');
      await eventually(() => checkedOut() === 0);
      await getCsv('/api/v1/endpoints', { q: 'bulk-00002' }).expect(200);
    });

    it('aborts an export whose client stopped reading, and releases the connection', async () => {
      const saved = csvExportLimits.idleMs;
      csvExportLimits.idleMs = 300;
      try {
        const { res, outcome } = await startExport();
        // The client reads nothing more: the server's buffers fill, the cursor stops, and after the idle limit the export ends.
        await eventually(() => checkedOut() === 0 && pool.waitingCount === 0, 10_000);
        expect(await exportBackends()).toEqual([]);
        res.resume();
        expect(await outcome).not.toBe('end');
      } finally {
        csvExportLimits.idleMs = saved;
      }
    });

    it('refuses more concurrent exports than it allows with 429', async () => {
      const running = await Promise.all([startExport(), startExport(), startExport(), startExport()]);
      const refused = await getCsv('/api/v1/endpoints', {}).expect(429);
      expect(refused.headers['retry-after']).toBe('5');
      for (const { req } of running) req.destroy();
      await eventually(() => checkedOut() === 0);
      await getCsv('/api/v1/endpoints', { q: 'bulk-00003' }).expect(200);
    });
  });
});
