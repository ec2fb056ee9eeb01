import { DataSource } from 'typeorm';
import { concrete, isPublic, registeredRoutes } from './support/routes';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

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

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
  });
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
});
