import { randomBytes } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { MAX_OFFSET } from '../src/common/http/pagination';
import { IMPORT_TOTAL_LIMIT } from '../src/modules/trust/root-store-import-form';
import { sendRaw } from './support/raw-upload';
import { concrete, declaredRoutes, isPublic, registeredRoutes } from './support/routes';
import { bearer, createScanner, type TestApp, createSignedInTestApp } from './support/test-app';

const MiB = 1024 * 1024;

const TABLES = ['users', 'api_keys', 'scanners', 'audit_log', 'endpoints', 'certificates', 'endpoint_certificates', 'scan_history'];

const GARBAGE: { label: string; contentType: string; body: string | Buffer }[] = [
  { label: 'malformed JSON', contentType: 'application/json', body: '{"name": "x", ' },
  { label: 'a PNG', contentType: 'application/octet-stream', body: Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex') },
  {
    label: 'a PNG labelled as PEM',
    contentType: 'application/x-pem-file',
    body: Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex'),
  },
  {
    label: 'JSON of the wrong types',
    contentType: 'application/json',
    body: JSON.stringify({
      name: 42,
      email: 7,
      role: [],
      password: {},
      dnsName: false,
      port: 'http',
      tags: 'x',
      pem: 1,
      scanConcurrency: 'many',
      expiresAt: 'soon',
    }),
  },
  { label: 'a JSON number', contentType: 'application/json', body: '12345' },
];

/** Every write route, as an administrator, answers garbage with a 4xx and changes nothing. */
describe('garbage in every write route', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  const counts = async () => {
    const dataSource = t.app.get(DataSource);
    const result: Record<string, number> = {};
    for (const table of TABLES) result[table] = (await dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
    return result;
  };

  it('is refused with a 4xx and a plain-text reason, and no table changes', async () => {
    const writeRoutes = registeredRoutes(t).filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method) && !isPublic(route));
    expect(writeRoutes.length).toBeGreaterThan(10);
    const before = await counts();
    const failures: string[] = [];
    for (const route of writeRoutes) {
      for (const garbage of GARBAGE) {
        const method = route.method.toLowerCase() as 'post' | 'put' | 'patch';
        const response = await t.http[method](concrete(route.path))
          .set(bearer(admin))
          .set('Content-Type', garbage.contentType)
          .send(garbage.body);
        const plain = String(response.headers['content-type']).startsWith('text/plain');
        if (response.status < 400 || response.status >= 500 || !plain)
          failures.push(`${route.method} ${route.path} with ${garbage.label}: ${response.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await counts()).toEqual(before);
  });

  describe('compressed bodies', () => {
    // 128 MiB of JSON whitespace, a few hundred KiB on the wire: inflated, it would pass every limit.
    const inflated = Buffer.alloc(128 * MiB, ' ');
    const BOMBS = [
      { encoding: 'gzip', body: gzipSync(inflated, { level: 1 }) },
      { encoding: 'br', body: brotliCompressSync(inflated, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } }) },
    ];
    let scanner: string;

    beforeAll(async () => {
      scanner = (await createScanner(t)).token;
    });

    it('are refused on every write route, 401 without a token and 415 with one, and never inflated', async () => {
      const access = declaredRoutes(t);
      const writeRoutes = registeredRoutes(t).filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));
      const before = await counts();
      const failures: string[] = [];
      for (const route of writeRoutes) {
        const token = access.get(`${route.method} ${route.path}`)?.kind === 'scanner' ? scanner : admin;
        for (const bomb of BOMBS) {
          for (const withToken of [false, true]) {
            const method = route.method.toLowerCase() as 'post' | 'put' | 'patch';
            let pending = t.http[method](concrete(route.path))
              .set('Content-Type', 'application/json')
              .set('Content-Encoding', bomb.encoding);
            if (withToken) pending = pending.set(bearer(token));
            const response = await pending.send(bomb.body);
            const expected = withToken || isPublic(route) ? 415 : 401;
            if (response.status !== expected || !String(response.headers['content-type']).startsWith('text/plain'))
              failures.push(`${route.method} ${route.path} ${bomb.encoding} ${withToken ? 'with' : 'without'} a token: ${response.status}`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(await counts()).toEqual(before);
      // Four requests per write route, and the routes keep coming: more than the default 30 s on a busy machine.
    }, 120_000);
  });

  it(`stops reading a chunked multipart upload without Content-Length at ${IMPORT_TOTAL_LIMIT / MiB} MiB`, async () => {
    const boundary = `----certkeeper${randomBytes(8).toString('hex')}`;
    // Files under the 10 MiB per-file limit, more of them than the whole form may hold.
    function* form(): Generator<Buffer> {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="matrix"; filename="m.csv"\r\n\r\nx\r\n`);
      for (let file = 0; file < 9; file += 1) {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="pems"; filename="${file}.pem"\r\n\r\n`);
        for (let mib = 0; mib < 9; mib += 1) yield Buffer.alloc(MiB, 'A');
        yield Buffer.from('\r\n');
      }
      yield Buffer.from(`--${boundary}--\r\n`);
    }
    const before = await counts();
    const answer = await sendRaw(t, {
      path: '/api/v1/root-stores/import',
      headers: { ...bearer(admin), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: form(),
    });
    expect([answer.status, answer.text]).toEqual([413, `Request body is larger than the ${IMPORT_TOTAL_LIMIT / MiB} MiB limit.\n`]);
    expect(answer.headers.connection).toBe('close');
    expect(answer.serverRead).toBeLessThan(IMPORT_TOTAL_LIMIT + 2 * MiB);
    expect(await counts()).toEqual(before);
  });

  it('answers huge offsets and other out-of-range query integers with 400, never a 500', async () => {
    const access = declaredRoutes(t);
    const scanner = (await createScanner(t)).token;
    const readRoutes = registeredRoutes(t).filter((route) => route.method === 'GET');
    const huge = ['99999999999999999999', '1e20', '9007199254740993', String(MAX_OFFSET + 1), '-99999999999999999999'];
    const failures: string[] = [];
    let paginated = 0;
    for (const route of readRoutes) {
      const token = access.get(`${route.method} ${route.path}`)?.kind === 'scanner' ? scanner : admin;
      const get = (query: string) => t.http.get(`${concrete(route.path)}?${query}`).set(bearer(token));
      // A route reads `offset` when it checks its range; the others refuse or ignore it.
      const takesOffset = (await get('offset=-1')).text.includes('offset must not be less than 0');
      if (takesOffset) paginated += 1;
      for (const name of ['offset', 'limit', 'days']) {
        for (const value of huge) {
          const response = await get(`${name}=${value}`);
          if (response.status >= 500 || (takesOffset && name === 'offset' && response.status !== 400))
            failures.push(`${route.path}?${name}=${value}: ${response.status} ${response.text.trim()}`);
        }
      }
      if (takesOffset) {
        const response = await get('offset=99999999999999999999');
        if (!response.text.includes(`offset must not be greater than ${MAX_OFFSET}`))
          failures.push(`${route.path}: ${response.text.trim()}`);
      }
    }
    expect(failures).toEqual([]);
    // The endpoint list, search, audit, certificates, active, expiring, anchors and history at least.
    expect(paginated).toBeGreaterThanOrEqual(8);
  });
  it('answers a null for a field that cannot be null with 400, never a 500, and changes nothing', async () => {
    const scanner = await createScanner(t);
    const user = (
      await t.http
        .post('/api/v1/users')
        .set(bearer(admin))
        .send({ email: `null-${randomBytes(3).toString('hex')}@x.test`, role: 'viewer' })
        .expect(201)
    ).body as { id: string };
    const cases: [method: 'put' | 'patch' | 'post', path: string, field: string][] = [
      ...['name', 'scanCronExpression', 'scanConcurrency'].map((field): ['patch', string, string] => [
        'patch',
        `/api/v1/scanners/${scanner.id}`,
        field,
      ]),
      ...['name', 'role', 'notify', 'disabled', 'email'].map((field): ['put', string, string] => [
        'put',
        `/api/v1/users/${user.id}`,
        field,
      ]),
      ...['name', 'notify', 'email', 'password'].map((field): ['put', string, string] => ['put', '/api/v1/me', field]),
      ['post', '/api/v1/users', 'password'],
    ];
    const before = await counts();
    const failures: string[] = [];
    for (const [method, path, field] of cases) {
      const body = method === 'post' ? { email: 'someone@x.test', role: 'viewer', [field]: null } : { [field]: null };
      const response = await t.http[method](path).set(bearer(admin)).send(body);
      if (response.status !== 400 || !response.text.includes(field))
        failures.push(`${method.toUpperCase()} ${path} { ${field}: null } -> ${response.status} ${response.text.trim()}`);
    }
    expect(failures).toEqual([]);
    expect(await counts()).toEqual(before);
  });
});
