import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mintCertificate, mintChain, type MintedCertificate, type MintedChain, pemBundle } from '@certkeeper/domain/testing';
import type { RootStoreSources } from '../src/config/app-config';
import { DEFAULT_FETCH_LIMITS, fetchSourceText } from '../src/modules/trust/source-fetch';
import { HOUR } from './support/fake-clock';
import { bearer, createTestApp, createUser, login, type TestApp } from './support/test-app';

const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');
const colons = (hex: string) => hex.toUpperCase().match(/../g)!.join(':');

// The CCADB all-included-roots columns, in CCADB's order, with one the parser does not read.
const COLUMNS = [
  'CA Owner',
  'Certificate Name',
  'Apple Status',
  'Apple Trust Bits',
  'Google Chrome Status',
  'Microsoft Status',
  'Microsoft EKUs',
  'Mozilla Status',
  'Mozilla Trust Bits',
  'SHA-256 Fingerprint',
  'Valid To (GMT)',
] as const;
type Column = (typeof COLUMNS)[number];
type Row = Partial<Record<Column, string>>;

const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
function csvOf(rows: Row[], header: readonly string[] = COLUMNS): string {
  return [header, ...rows.map((row) => COLUMNS.map((column) => row[column] ?? ''))].map((cells) => cells.map(quote).join(',')).join('\r\n');
}

const NOT_INCLUDED: Row = {
  'Apple Status': 'Not Included',
  'Google Chrome Status': 'Not Included',
  'Microsoft Status': 'Not Included',
  'Mozilla Status': 'Not Included',
};

interface StoreBody {
  id: string;
  anchorCount: number;
  updatedAt: string | null;
  source: string | null;
}

interface TaskResult {
  outcome: string;
  counts: Record<string, number>;
}

/** A local stand-in for CCADB: serves what `files` holds, whole, cut short or not at all. */
interface SourceServer {
  url: string;
  files: Map<string, { body: string; cutShort?: boolean }>;
  close(): Promise<void>;
}

async function startSourceServer(): Promise<SourceServer> {
  const files: SourceServer['files'] = new Map();
  const server: Server = createServer((req, res) => {
    if (req.url === '/moved/roots.csv') {
      res.writeHead(302, { location: '/roots.csv' }).end();
      return;
    }
    if (req.url === '/loop') {
      res.writeHead(307, { location: '/loop' }).end();
      return;
    }
    if (req.url === '/stall') return; // never answers
    const file = files.get(req.url ?? '');
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    const body = Buffer.from(file.body);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    if (!file.cutShort) {
      res.end(body);
      return;
    }
    // Half the promised bytes, then the connection drops: a download cut short.
    res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Roots minted in memory, each with the CCADB row that places it, and a chain under one of them. */
interface Fixture {
  everywhere: MintedCertificate;
  microsoftAndChrome: MintedCertificate;
  mozillaOnly: MintedCertificate;
  chromeOnly: MintedCertificate;
  emailOnly: MintedCertificate;
  chain: MintedChain;
  rows: Row[];
  /** Two PEM reports that together hold every root a store includes, and one certificate no row names. */
  pemReports: [string, string];
}

async function mintFixture(): Promise<Fixture> {
  const root = (name: string) => mintCertificate({ subject: `CN=${name}, O=Test CAs`, ca: true });
  const [everywhere, microsoftAndChrome, mozillaOnly, chromeOnly, emailOnly, chain] = await Promise.all([
    root('Everywhere Root'),
    root('Microsoft And Chrome Root'),
    root('Mozilla Only Root'),
    root('Chrome Only Root'),
    root('Email Only Root'),
    mintChain(),
  ]);
  const rows: Row[] = [
    {
      'CA Owner': 'Everywhere CA',
      'Certificate Name': 'Everywhere Root',
      'Apple Status': 'Included',
      'Apple Trust Bits': 'clientAuth;serverAuth',
      'Google Chrome Status': 'Included',
      'Microsoft Status': 'Included',
      'Microsoft EKUs': 'Client Authentication;Server Authentication',
      'Mozilla Status': 'Included',
      'Mozilla Trust Bits': 'Email;Websites',
      'SHA-256 Fingerprint': sha256(everywhere),
    },
    {
      // Upper-case, colon-separated, as some exports write it.
      'CA Owner': 'Mixed CA',
      'Certificate Name': 'Microsoft And Chrome Root',
      'Apple Status': 'Removed',
      'Apple Trust Bits': 'serverAuth',
      'Google Chrome Status': 'Included',
      'Microsoft Status': 'Included',
      'Microsoft EKUs': 'Server Authentication',
      'Mozilla Status': 'Included',
      'Mozilla Trust Bits': 'Email',
      'SHA-256 Fingerprint': colons(sha256(microsoftAndChrome)),
    },
    {
      ...NOT_INCLUDED,
      'Certificate Name': 'Mozilla Only Root',
      'Microsoft Status': 'Included',
      'Microsoft EKUs': 'Client Authentication',
      'Mozilla Status': 'Included',
      'Mozilla Trust Bits': 'Websites',
      'SHA-256 Fingerprint': sha256(mozillaOnly),
    },
    {
      ...NOT_INCLUDED,
      'Certificate Name': 'Chrome Only Root',
      'Google Chrome Status': 'Included',
      'SHA-256 Fingerprint': sha256(chromeOnly),
    },
    {
      // Included for e-mail only: in no store, so the PEM reports need not carry it.
      'Certificate Name': 'Email Only Root',
      'Apple Status': 'Included',
      'Apple Trust Bits': 'emailProtection',
      'Google Chrome Status': 'Not Included',
      'Microsoft Status': 'Included',
      'Microsoft EKUs': 'Secure Email',
      'Mozilla Status': 'Included',
      'Mozilla Trust Bits': 'Email',
      'SHA-256 Fingerprint': sha256(emailOnly),
    },
    {
      ...NOT_INCLUDED,
      'Certificate Name': 'Certkeeper Test Root',
      'Google Chrome Status': 'Included',
      'Mozilla Status': 'Included',
      'Mozilla Trust Bits': 'Websites',
      'SHA-256 Fingerprint': sha256(chain.root),
    },
    { ...NOT_INCLUDED, 'Certificate Name': 'A row without a usable fingerprint', 'SHA-256 Fingerprint': 'n/a' },
  ];
  return {
    everywhere,
    microsoftAndChrome,
    mozillaOnly,
    chromeOnly,
    emailOnly,
    chain,
    rows,
    pemReports: [pemBundle(everywhere, microsoftAndChrome, chain.intermediate), pemBundle(mozillaOnly, chromeOnly, chain.root)],
  };
}

const EXPECTED_COUNTS = { mozilla: 3, apple: 1, microsoft: 2, chrome: 4 };

describe('root-store refresh (maintenance task refresh-root-stores)', () => {
  let t: TestApp;
  let admin: string;
  let server: SourceServer;
  let fixture: Fixture;
  let scratch: string;

  beforeAll(async () => {
    [t, server, fixture, scratch] = await Promise.all([
      createTestApp(),
      startSourceServer(),
      mintFixture(),
      mkdtemp(join(tmpdir(), 'certkeeper-ccadb-')),
    ]);
    admin = await login(t);
  });
  afterAll(async () => {
    await Promise.all([t.close(), server.close(), rm(scratch, { recursive: true, force: true })]);
  });

  // The app reads its sources at every run, from the configuration object the test holds.
  const useSources = (csvUrl: string, pemUrls: string[]) => {
    t.config.rootStoreSources = { csvUrl, pemUrls, fetchTimeoutMs: 5000 } satisfies RootStoreSources;
  };
  const serve = (csv: string, pemReports: string[] = fixture.pemReports) => {
    server.files.clear();
    server.files.set('/roots.csv', { body: csv });
    pemReports.forEach((report, index) => server.files.set(`/report-${index}.pem`, { body: report }));
    useSources(
      `${server.url}/roots.csv`,
      pemReports.map((_, index) => `${server.url}/report-${index}.pem`),
    );
  };
  const refresh = async () =>
    (await t.http.post('/api/v1/maintenance/tasks/refresh-root-stores/run').set(bearer(admin)).expect(200)).body as TaskResult;
  const stores = async () => (await t.http.get('/api/v1/root-stores').set(bearer(admin)).expect(200)).body as StoreBody[];
  const anchorsOf = async (store: string) =>
    ((await t.http.get(`/api/v1/root-stores/${store}/anchors`).set(bearer(admin)).expect(200)).body as { fingerprint: string }[])
      .map((anchor) => anchor.fingerprint)
      .sort();
  const trustedBy = async (minted: MintedCertificate) =>
    (
      (
        await t.http
          .get(`/api/v1/certificates/${sha256(minted)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as { trustedBy: string[] }
    ).trustedBy;

  /** Runs the refresh expecting it to fail, and proves nothing changed: sets, times and sources. */
  const expectFailedRefreshKeepsEverything = async (reason: RegExp) => {
    const before = await stores();
    const anchorsBefore = await anchorsOf('chrome');
    t.clock.advance(HOUR);
    const result = await refresh();
    expect(result.outcome).toMatch(/^failed: /);
    expect(result.outcome).toMatch(reason);
    expect(await stores()).toEqual(before);
    expect(await anchorsOf('chrome')).toEqual(anchorsBefore);
    return result.outcome;
  };

  it('fills each store per its program rules, normalising fingerprints, and verdicts follow', async () => {
    const { chain } = fixture;
    await t.http
      .post('/api/v1/certificates')
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(pemBundle(chain.leaf, chain.intermediate))
      .expect(201);
    expect(await trustedBy(chain.leaf)).toEqual([]);

    serve(csvOf(fixture.rows));
    const result = await refresh();
    expect(result).toEqual({
      name: 'refresh-root-stores',
      outcome: 'succeeded',
      counts: expect.objectContaining({ ...EXPECTED_COUNTS, skippedRows: 1 }) as Record<string, number>,
    });
    // `changed` is not asserted: the background pass that new CA certificates request may apply the change first.
    expect(result.counts.evaluated).toBeGreaterThanOrEqual(2);

    const updatedAt = t.clock.now().toISOString();
    expect(await stores()).toEqual(
      ['mozilla', 'apple', 'microsoft', 'chrome'].map((id) => ({
        id,
        name: expect.any(String) as string,
        anchorCount: EXPECTED_COUNTS[id as keyof typeof EXPECTED_COUNTS],
        updatedAt,
        source: `${server.url}/roots.csv`,
      })),
    );
    const { everywhere, microsoftAndChrome, mozillaOnly, chromeOnly } = fixture;
    expect(await anchorsOf('mozilla')).toEqual([everywhere, mozillaOnly, chain.root].map(sha256).sort());
    expect(await anchorsOf('apple')).toEqual([sha256(everywhere)]);
    expect(await anchorsOf('microsoft')).toEqual([everywhere, microsoftAndChrome].map(sha256).sort());
    expect(await anchorsOf('chrome')).toEqual([everywhere, microsoftAndChrome, chromeOnly, chain.root].map(sha256).sort());

    // The leaf and its intermediate, stored before their root was an anchor, now chain to it.
    expect(await trustedBy(chain.leaf)).toEqual(['mozilla', 'chrome']);
    expect(await trustedBy(chain.intermediate)).toEqual(['mozilla', 'chrome']);

    const tasks = (await t.http.get('/api/v1/maintenance/tasks').set(bearer(admin)).expect(200)).body as { name: string }[];
    expect(tasks[0]).toMatchObject({ name: 'refresh-root-stores', lastOutcome: 'succeeded' });
  });

  it('fails on a renamed column, naming it, and keeps the previous sets', async () => {
    const header = COLUMNS.map((column) => (column === 'Mozilla Status' ? 'Mozilla Root Status' : column));
    serve(csvOf(fixture.rows, header));
    const outcome = await expectFailedRefreshKeepsEverything(/Mozilla Status/);
    expect(outcome).not.toContain('Mozilla Root Status');
  });

  it('fails on a download cut short and keeps the previous sets', async () => {
    serve(csvOf(fixture.rows));
    server.files.set('/report-1.pem', { body: fixture.pemReports[1], cutShort: true });
    await expectFailedRefreshKeepsEverything(/cut short/);

    serve(csvOf(fixture.rows));
    server.files.set('/roots.csv', { body: csvOf(fixture.rows), cutShort: true });
    await expectFailedRefreshKeepsEverything(/roots\.csv.*cut short/);
  });

  it('fails when the PEM reports lack a root the CSV lists, and keeps the previous sets', async () => {
    serve(csvOf(fixture.rows), [fixture.pemReports[0], pemBundle(fixture.mozillaOnly, fixture.chain.root)]);
    const outcome = await expectFailedRefreshKeepsEverything(/lack 1 of the 5 roots/);
    expect(outcome).toContain(sha256(fixture.chromeOnly));
  });

  it('fails on a missing or unreachable source, without credentials in the outcome or the logs', async () => {
    serve(csvOf(fixture.rows));
    useSources(`${server.url.replace('//', '//reader:s3cret-password@')}/gone.csv`, [`${server.url}/report-0.pem`]);
    expect(await expectFailedRefreshKeepsEverything(/HTTP 404/)).toContain(`${server.url}/gone.csv`);

    const closed = await startSourceServer();
    await closed.close();
    useSources(`${closed.url}/roots.csv`, [`${server.url}/report-0.pem`]);
    await expectFailedRefreshKeepsEverything(/ECONNREFUSED/);

    useSources(pathToFileURL(join(scratch, 'absent.csv')).href, [`${server.url}/report-0.pem`]);
    await expectFailedRefreshKeepsEverything(/no such file/);

    expect(JSON.stringify(t.logs)).not.toContain('s3cret-password');
  });

  it('reads file:// sources, follows a redirect, and drops a store from a root the next refresh removes', async () => {
    const rows = fixture.rows
      .filter((row) => row['Certificate Name'] !== 'Chrome Only Root')
      .map((row) => (row['Certificate Name'] === 'Certkeeper Test Root' ? { ...row, 'Google Chrome Status': 'Removed' } : row));
    const csv = join(scratch, 'AllIncludedRootCertsCSV.csv');
    const pem = join(scratch, 'roots.pem');
    await writeFile(csv, csvOf(rows));
    await writeFile(pem, fixture.pemReports[1]);
    server.files.set('/roots.csv', { body: 'unused' });
    server.files.set('/report-0.pem', { body: fixture.pemReports[0] });
    useSources(pathToFileURL(csv).href, [`${server.url}/report-0.pem`, pathToFileURL(pem).href]);
    t.clock.advance(HOUR);

    const result = await refresh();
    expect(result.outcome).toBe('succeeded');
    expect(result.counts).toMatchObject({ mozilla: 3, apple: 1, microsoft: 2, chrome: 2 });
    const chrome = (await stores()).find((store) => store.id === 'chrome')!;
    expect(chrome).toMatchObject({ anchorCount: 2, source: pathToFileURL(csv).href, updatedAt: t.clock.now().toISOString() });
    expect(await trustedBy(fixture.chain.leaf)).toEqual(['mozilla']);

    // Back to the HTTP source, through a redirect: the root is in Chrome again.
    serve(csvOf(fixture.rows));
    useSources(`${server.url}/moved/roots.csv`, [`${server.url}/report-0.pem`, `${server.url}/report-1.pem`]);
    expect((await refresh()).counts).toMatchObject(EXPECTED_COUNTS);
    expect(await trustedBy(fixture.chain.leaf)).toEqual(['mozilla', 'chrome']);
  });
});

describe('POST /api/v1/root-stores/import', () => {
  let t: TestApp;
  let admin: string;
  let fixture: Fixture;

  beforeAll(async () => {
    [t, fixture] = await Promise.all([createTestApp(), mintFixture()]);
    admin = await login(t);
  });
  afterAll(() => t.close());

  const importForm = (token = admin) => t.http.post('/api/v1/root-stores/import').set(bearer(token));
  const stores = async () => (await t.http.get('/api/v1/root-stores').set(bearer(admin)).expect(200)).body as StoreBody[];
  const auditCount = async () =>
    (
      (await t.http.get('/api/v1/audit').query({ action: 'root_stores:import' }).set(bearer(admin)).expect(200)).body as {
        totalCount: number;
      }
    ).totalCount;

  it('replaces the stores from the uploaded CSV and PEM reports, with source `upload`, and audits it', async () => {
    const response = await importForm()
      .attach('matrix', Buffer.from(csvOf(fixture.rows)), 'AllIncludedRootCertsCSV.csv')
      .attach('pems', Buffer.from(fixture.pemReports[0]), 'a.pem')
      .attach('pems', Buffer.from(fixture.pemReports[1]), 'b.pem')
      .expect(200);
    expect(response.body).toMatchObject({ ...EXPECTED_COUNTS, skippedRows: 1 });
    expect((await stores()).map((store) => [store.id, store.anchorCount, store.source])).toEqual([
      ['mozilla', 3, 'upload'],
      ['apple', 1, 'upload'],
      ['microsoft', 2, 'upload'],
      ['chrome', 4, 'upload'],
    ]);
    expect(await auditCount()).toBe(1);
  });

  it('applies two imports sent at once one after the other', async () => {
    const withoutChromeOnly = fixture.rows.filter((row) => row['Certificate Name'] !== 'Chrome Only Root');
    const send = (rows: Row[]) =>
      importForm()
        .attach('matrix', Buffer.from(csvOf(rows)), 'm.csv')
        .attach('pems', Buffer.from(fixture.pemReports.join('')), 'all.pem');
    const [first, second] = await Promise.all([send(withoutChromeOnly), send(fixture.rows)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const chrome = (await stores()).find((store) => store.id === 'chrome')!;
    expect([3, 4]).toContain(chrome.anchorCount);
    await send(fixture.rows).expect(200);
    expect(await auditCount()).toBe(4);
  });

  it('refuses a missing token (401) and roles without settings:edit (403)', async () => {
    await t.http.post('/api/v1/root-stores/import').attach('matrix', Buffer.from('x'), 'm.csv').expect(401);
    for (const role of ['viewer', 'operator'] as const) {
      const user = await createUser(t, role);
      const response = await importForm(user.token)
        .attach('matrix', Buffer.from(csvOf(fixture.rows)), 'm.csv')
        .expect(403);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
    }
  });

  it('answers bad forms and unusable data with a plain-text 400 (413 for an oversized file), changing nothing', async () => {
    const before = await stores();
    const csv = Buffer.from(csvOf(fixture.rows));
    const [pemA, pemB] = fixture.pemReports.map((report) => Buffer.from(report));
    const renamed = Buffer.from(
      csvOf(
        fixture.rows,
        COLUMNS.map((column) => (column === 'SHA-256 Fingerprint' ? 'SHA256 Fingerprint' : column)),
      ),
    );
    const cases: [string, () => ReturnType<typeof importForm>, number, RegExp][] = [
      ['not multipart', () => importForm().send({ matrix: 'x', pems: ['y'] }), 400, /multipart\/form-data/],
      ['no matrix', () => importForm().attach('pems', pemA, 'a.pem'), 400, /no 'matrix' file/],
      ['no pems', () => importForm().attach('matrix', csv, 'm.csv'), 400, /no 'pems' file/],
      [
        'two matrices',
        () => importForm().attach('matrix', csv, 'm.csv').attach('matrix', csv, 'n.csv').attach('pems', pemA, 'a.pem'),
        400,
        /2 'matrix' files/,
      ],
      [
        'an unknown file field',
        () => importForm().attach('matrix', csv, 'm.csv').attach('pems', pemA, 'a.pem').attach('roots', pemB, 'b.pem'),
        400,
        /Unexpected form field\(s\) 'roots'/,
      ],
      ['the CSV as a text field', () => importForm().field('matrix', csvOf(fixture.rows)).attach('pems', pemA, 'a.pem'), 400, /file parts/],
      [
        'a renamed column',
        () => importForm().attach('matrix', renamed, 'm.csv').attach('pems', pemA, 'a.pem').attach('pems', pemB, 'b.pem'),
        400,
        /'SHA-256 Fingerprint'/,
      ],
      [
        'roots missing from the PEM reports',
        () => importForm().attach('matrix', csv, 'm.csv').attach('pems', pemA, 'a.pem'),
        400,
        /lack 3 of the 5 roots/,
      ],
      [
        'a file over 10 MiB',
        () =>
          importForm()
            .attach('matrix', csv, 'm.csv')
            .attach('pems', Buffer.alloc(10 * 1024 * 1024 + 1, 'A'), 'huge.pem'),
        413,
        /at most 10 MiB/,
      ],
    ];
    const failures: string[] = [];
    for (const [label, send, status, message] of cases) {
      const response = await send();
      const plain = String(response.headers['content-type']).startsWith('text/plain');
      if (response.status !== status || !plain || !message.test(response.text))
        failures.push(`${label}: ${response.status} ${response.headers['content-type']} ${response.text}`);
    }
    expect(failures).toEqual([]);
    expect(await stores()).toEqual(before);
    expect(await auditCount()).toBe(4);
  });
});

describe('fetching a source', () => {
  let server: SourceServer;

  beforeAll(async () => {
    server = await startSourceServer();
    server.files.set('/report.pem', { body: 'x'.repeat(100) });
  });
  afterAll(() => server.close());

  const limits = { ...DEFAULT_FETCH_LIMITS, timeoutMs: 500 };

  it('reads a whole body, and refuses one over the size cap', async () => {
    await expect(fetchSourceText(`${server.url}/report.pem`, limits)).resolves.toHaveLength(100);
    await expect(fetchSourceText(`${server.url}/report.pem`, { ...limits, maxBytes: 99 })).rejects.toThrow(/larger than/);
  });

  it('gives up at the deadline and after a few redirects', async () => {
    await expect(fetchSourceText(`${server.url}/stall`, limits)).rejects.toThrow(/stall: no complete answer within 0.5 s/);
    await expect(fetchSourceText(`${server.url}/loop`, limits)).rejects.toThrow(/more than 3 redirects/);
  });

  it('takes only http, https and file addresses', async () => {
    await expect(fetchSourceText('ftp://mirror.example.com/roots.csv', limits)).rejects.toThrow(/only http, https and file addresses/);
  });
});
