import { DataSource } from 'typeorm';
import { mintCertificate } from '@certkeeper/domain/testing';
import { DAY, HOUR } from './support/fake-clock';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

interface EndpointBody {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  scanExempt: boolean;
  scannerId: string | null;
  notes: string;
  tags: string[];
  dnsName: string | null;
  port: number | null;
  ipAddress: string | null;
  metadataUrl: string | null;
  chainComplete: boolean | null;
  resolvedIp: string | null;
  samlMetadata: unknown;
  currentCertificates?: unknown[];
}

interface PageBody {
  items: EndpointBody[];
  totalCount: number;
  limit: number;
  offset: number;
}

describe('endpoints', () => {
  let t: TestApp;
  let admin: string;
  let defaultScannerId: string;
  let sql: DataSource;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
    const scanners = (await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as { id: string; isDefault: boolean }[];
    defaultScannerId = scanners.find((s) => s.isDefault)!.id;
  });
  afterAll(() => t.close());

  const post = (body: unknown) =>
    t.http
      .post('/api/v1/endpoints')
      .set(bearer(admin))
      .send(body as object);
  const create = async (body: Record<string, unknown>) => (await post(body).expect(201)).body as EndpointBody;
  const unique = () => `h${Math.random().toString(36).slice(2, 10)}.example.com`;

  describe('create', () => {
    it('makes a host with defaults, assigned to the default scanner', async () => {
      const endpoint = await create({ name: 'Web', dnsName: 'WWW.Example.org.' });
      expect(endpoint).toMatchObject({
        name: 'Web',
        type: 'host',
        enabled: true,
        scanExempt: false,
        scannerId: defaultScannerId,
        notes: '',
        tags: [],
        dnsName: 'www.example.org',
        port: 443,
        ipAddress: null,
        metadataUrl: null,
        chainComplete: null,
        resolvedIp: null,
        samlMetadata: null,
      });
      const detail = (await t.http.get(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
      expect(detail).toMatchObject({ id: endpoint.id, currentCertificates: [] });
    });

    it('makes saml and manual endpoints, ignoring fields that do not apply', async () => {
      const saml = await create({
        name: 'IdP',
        type: 'saml',
        metadataUrl: 'https://idp.example.com/metadata',
        dnsName: 'ignored.com',
        port: 8443,
      });
      expect(saml).toMatchObject({
        type: 'saml',
        metadataUrl: 'https://idp.example.com/metadata',
        dnsName: null,
        port: null,
        scannerId: defaultScannerId,
      });
      const manual = await create({ name: 'Vendor cert', type: 'manual', scannerId: defaultScannerId, metadataUrl: 'https://x' });
      expect(manual).toMatchObject({ type: 'manual', scannerId: null, metadataUrl: null, dnsName: null });
    });

    it('pins an IP and a scanner', async () => {
      const scanner = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'pinned-scanner' }).expect(201)).body as {
        id: string;
      };
      const endpoint = await create({
        name: 'Pinned',
        dnsName: unique(),
        port: 8443,
        ipAddress: '2001:DB8::1',
        scannerId: scanner.id,
        tags: ['env:prod', 'team'],
      });
      expect(endpoint).toMatchObject({ port: 8443, ipAddress: '2001:db8::1', scannerId: scanner.id, tags: ['env:prod', 'team'] });
    });

    it.each([
      [{ dnsName: 'x.com' }, 'name is required'],
      [{ name: 'h' }, 'dnsName is required for host endpoints'],
      [{ name: 's', type: 'saml' }, 'metadataUrl is required for saml endpoints'],
      [{ name: 'h', type: 'ftp', dnsName: 'x.com' }, 'type must be one of the following values: host, saml, manual'],
      [{ name: 'h', dnsName: 'not a host!' }, 'dnsName must be a DNS name or an IP address'],
      [{ name: 'h', dnsName: 'x.com', port: 0 }, 'port must not be less than 1'],
      [{ name: 'h', dnsName: 'x.com', port: 65536 }, 'port must not be greater than 65535'],
      [{ name: 'h', dnsName: 'x.com', port: '443' }, 'port must be an integer number'],
      [{ name: 'h', dnsName: 'x.com', ipAddress: '300.1.1.1' }, 'ipAddress must be an IPv4 or IPv6 address'],
      [{ name: 's', type: 'saml', metadataUrl: 'ftp://idp/md' }, 'metadataUrl must be an http or https URL'],
      [{ name: 'h', dnsName: 'x.com', scannerId: 'abc' }, 'scannerId must be a UUID or null'],
      [{ name: 'h', dnsName: 'x.com', scannerId: '00000000-0000-4000-8000-000000000000' }, 'scannerId: no scanner has this id'],
      [{ name: 'h', dnsName: 'x.com', tags: ['ok', 'bad\ntag'] }, 'tags must be strings of 1 to 100 printable characters'],
      [{ name: 'h', dnsName: 'x.com', tags: ['x'.repeat(101)] }, 'tags must be strings'],
      [
        { name: 'h', dnsName: 'x.com', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) },
        'tags must contain no more than 100 elements',
      ],
      [{ name: 'h', dnsName: 'x.com', enabled: 'yes' }, 'enabled must be a boolean value'],
      [{ name: 'h', dnsName: 'x.com', owner: 'me' }, 'property owner should not exist'],
    ])('refuses %j with 400', async (body, message) => {
      const before = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoints');
      const response = await post(body).expect(400);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.text).toContain(message);
      expect(await sql.query('SELECT count(*)::int AS n FROM endpoints')).toEqual(before);
    });

    it('refuses bodies that are not an endpoint object', async () => {
      await t.http.post('/api/v1/endpoints').set(bearer(admin)).set('Content-Type', 'text/plain').send('hello').expect(400);
      await t.http.post('/api/v1/endpoints').set(bearer(admin)).set('Content-Type', 'application/json').send('[1,2]').expect(400);
      await t.http.post('/api/v1/endpoints').set(bearer(admin)).set('Content-Type', 'application/json').send('{"name":').expect(400);
    });
  });

  describe('duplicates', () => {
    it('are 409 for the same host identity on the same scanner, in any case, and allowed otherwise', async () => {
      const dnsName = unique();
      await create({ name: 'first', dnsName });
      const response = await post({ name: 'again', dnsName: dnsName.toUpperCase() }).expect(409);
      expect(response.text).toContain('same dnsName, port, ipAddress and scanner');
      await create({ name: 'other port', dnsName, port: 8443 });
      await create({ name: 'pinned ip', dnsName, ipAddress: '10.0.0.1' });
      await post({ name: 'pinned ip again', dnsName, ipAddress: '10.0.0.1' }).expect(409);
      const scanner = (
        await t.http
          .post('/api/v1/scanners')
          .set(bearer(admin))
          .send({ name: `dup-${dnsName}` })
          .expect(201)
      ).body as { id: string };
      await create({ name: 'other scanner', dnsName, scannerId: scanner.id });
    });

    it('are 409 for the same metadata URL on the same scanner', async () => {
      const metadataUrl = `https://${unique()}/metadata`;
      await create({ name: 'idp', type: 'saml', metadataUrl });
      await post({ name: 'idp again', type: 'saml', metadataUrl }).expect(409);
    });

    it('are refused under concurrency: exactly one of two identical creates wins', async () => {
      const dnsName = unique();
      const statuses = (await Promise.all([post({ name: 'a', dnsName }), post({ name: 'b', dnsName })])).map((r) => r.status);
      expect(statuses.sort()).toEqual([201, 409]);
    });
  });

  describe('update', () => {
    it('PATCH changes only what it names; PUT returns omitted fields to their defaults', async () => {
      const endpoint = await create({ name: 'editable', dnsName: unique(), port: 8443, notes: 'keep', tags: ['a'] });
      const patched = (await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ enabled: false }).expect(200))
        .body as EndpointBody;
      expect(patched).toMatchObject({ enabled: false, port: 8443, notes: 'keep', tags: ['a'] });
      const replaced = (
        await t.http
          .put(`/api/v1/endpoints/${endpoint.id}`)
          .set(bearer(admin))
          .send({ name: 'replaced', dnsName: endpoint.dnsName })
          .expect(200)
      ).body as EndpointBody;
      expect(replaced).toMatchObject({ name: 'replaced', enabled: true, port: 443, notes: '', tags: [] });
      // The search text follows the rename.
      const found = (await t.http.get('/api/v1/endpoints').query({ q: 'REPLACED' }).set(bearer(admin)).expect(200)).body as PageBody;
      expect(found.items.map((e) => e.id)).toContain(endpoint.id);
      expect(
        ((await t.http.get('/api/v1/endpoints').query({ q: 'editable' }).set(bearer(admin)).expect(200)).body as PageBody).items,
      ).toEqual([]);
      await t.http.put(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ name: 'no dns name' }).expect(400);
    });

    it('refuses a type change, a duplicate and an unknown id', async () => {
      const dnsName = unique();
      await create({ name: 'taken', dnsName });
      const endpoint = await create({ name: 'mover', dnsName: unique() });
      const typeChange = await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ type: 'saml' }).expect(400);
      expect(typeChange.text).toContain('type cannot change');
      await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ dnsName }).expect(409);
      await t.http.patch('/api/v1/endpoints/00000000-0000-4000-8000-000000000000').set(bearer(admin)).send({ enabled: false }).expect(404);
    });

    it('returns an endpoint to the default scanner when scannerId is cleared, and when its scanner is deleted', async () => {
      const scanner = (
        await t.http
          .post('/api/v1/scanners')
          .set(bearer(admin))
          .send({ name: `doomed-${unique()}` })
          .expect(201)
      ).body as { id: string };
      const endpoint = await create({ name: 'pinned', dnsName: unique(), scannerId: scanner.id });
      const cleared = (await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ scannerId: null }).expect(200))
        .body as EndpointBody;
      expect(cleared.scannerId).toBe(defaultScannerId);

      const other = await create({ name: 'pinned too', dnsName: unique(), scannerId: scanner.id });
      await t.http.delete(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).expect(204);
      const orphan = (await t.http.get(`/api/v1/endpoints/${other.id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
      expect(orphan.scannerId).toBeNull();
    });

    it('deletes with 204, then 404', async () => {
      const endpoint = await create({ name: 'short-lived', type: 'manual' });
      await t.http.delete(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(204);
      await t.http.get(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(404);
      await t.http.delete(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(404);
    });
  });

  describe('list', () => {
    let listApp: TestApp;
    let token: string;
    const names: string[] = [];

    beforeAll(async () => {
      listApp = await createTestApp();
      token = await login(listApp);
      const rows = [
        { name: 'alpha', dnsName: 'alpha.example.com', tags: ['env:prod'] },
        { name: 'bravo', dnsName: 'bravo.example.net', tags: ['env:test'], enabled: false },
        { name: 'charlie', type: 'saml', metadataUrl: 'https://sso.corp.example/metadata', tags: ['team:id'] },
        { name: 'delta', type: 'manual', tags: ['env:prod', 'team:id'] },
        { name: 'echo', dnsName: 'echo.internal' },
      ];
      const result = (await listApp.http.post('/api/v1/endpoints/bulk').set(bearer(token)).send(rows).expect(200)).body as {
        created: number;
      };
      expect(result.created).toBe(5);
      names.push(...rows.map((r) => r.name));
      await listApp.app.get(DataSource).query(`UPDATE endpoints SET error_since = now(), last_scan_error = 'refused' WHERE name = 'echo'`);
    });
    afterAll(() => listApp.close());

    const list = async (query: Record<string, unknown>) =>
      (await listApp.http.get('/api/v1/endpoints').query(query).set(bearer(token)).expect(200)).body as PageBody;

    it('returns the envelope sorted by name', async () => {
      const page = await list({});
      expect(page).toMatchObject({ totalCount: 5, limit: 50, offset: 0 });
      expect(page.items.map((e) => e.name)).toEqual(names);
    });

    it('pages with limit and offset', async () => {
      const page = await list({ limit: 2, offset: 1 });
      expect(page).toMatchObject({ totalCount: 5, limit: 2, offset: 1 });
      expect(page.items.map((e) => e.name)).toEqual(['bravo', 'charlie']);
      expect((await list({ offset: 10 })).items).toEqual([]);
    });

    it.each([
      [{ type: 'saml' }, ['charlie']],
      [{ enabled: 'false' }, ['bravo']],
      [{ has_error: 'true' }, ['echo']],
      [{ has_error: 'false' }, ['alpha', 'bravo', 'charlie', 'delta']],
      [{ tag: 'team:id' }, ['charlie', 'delta']],
      [{ tag: ['env:test', 'team:id'] }, ['bravo', 'charlie', 'delta']],
      [{ q: 'EXAMPLE.NET' }, ['bravo']],
      [{ q: 'sso.corp' }, ['charlie']],
      [{ q: 'elt' }, ['delta']],
      [{ q: '%' }, []],
      [{ type: 'host', tag: 'env:prod' }, ['alpha']],
    ])('filters by %j', async (query, expected) => {
      const page = await list(query);
      expect(page.items.map((e) => e.name)).toEqual(expected);
      expect(page.totalCount).toBe(expected.length);
    });

    it.each([
      { limit: 0 },
      { limit: 501 },
      { offset: -1 },
      { limit: 'x' },
      { type: 'ftp' },
      { enabled: 'maybe' },
      { has_error: '1' },
      { tag: 'bad\u0000' },
      { sort: 'nom' },
      { sort: '--name' },
      { sort: 'notAfter' },
      { expires_within: -1 },
      { expires_within: 3651 },
      { expires_within: '1.5' },
      { expires_within: 'soon' },
    ])('refuses %j with 400', async (query) => {
      await listApp.http.get('/api/v1/endpoints').query(query).set(bearer(token)).expect(400);
    });

    it('lists the tags in use with counts and categories', async () => {
      const tags = (await listApp.http.get('/api/v1/tags').set(bearer(token)).expect(200)).body as unknown[];
      expect(tags).toEqual([
        { tag: 'env:prod', category: 'env', value: 'prod', endpointCount: 2 },
        { tag: 'env:test', category: 'env', value: 'test', endpointCount: 1 },
        { tag: 'team:id', category: 'team', value: 'id', endpointCount: 2 },
      ]);
    });
  });

  describe('list order and expiry', () => {
    let listApp: TestApp;
    let token: string;
    const ids: Record<string, string> = {};

    // Whole hours past whole days, so daysRemaining is exact whatever the test takes.
    const expiringIn = (days: number) =>
      mintCertificate({
        subject: `CN=in-${days}.example.com`,
        notBefore: new Date(listApp.clock.now().getTime() - 400 * DAY),
        notAfter: new Date(listApp.clock.now().getTime() + days * DAY + HOUR),
      });
    const upload = async (name: string, minted: { pem: string }, query: Record<string, string> = {}) => {
      await listApp.http
        .post(`/api/v1/endpoints/${ids[name]}/certificate`)
        .query(query)
        .set(bearer(token))
        .set('Content-Type', 'application/x-pem-file')
        .send(minted.pem)
        .expect((response) => expect([200, 201]).toContain(response.status));
    };

    beforeAll(async () => {
      listApp = await createTestApp();
      listApp.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
      token = await login(listApp);
      // One at a time, so createdAt follows this order.
      for (const name of ['app 10', 'beta', 'App 2', 'app 1', 'app 3']) {
        const body = { name, type: 'manual' };
        ids[name] = ((await listApp.http.post('/api/v1/endpoints').set(bearer(token)).send(body).expect(201)).body as EndpointBody).id;
      }
      await upload('app 10', await expiringIn(100));
      await upload('App 2', await expiringIn(-6)); // expired: -5 days and 23 hours is daysRemaining -6
      // Two current signing certificates side by side (replace=false): the sooner one counts.
      await upload('app 1', await expiringIn(300), { certUse: 'signing', replace: 'false' });
      await upload('app 1', await expiringIn(20), { certUse: 'signing', replace: 'false' });
      // Replaced: the certificate moved to history no longer counts.
      await upload('app 3', await expiringIn(10));
      await upload('app 3', await expiringIn(400));
      await listApp.app.get(DataSource).query(
        `UPDATE endpoints SET last_scanned_at = now() - (CASE name WHEN 'app 1' THEN 3 WHEN 'beta' THEN 1 ELSE 2 END) * interval '1 hour'
          WHERE name IN ('app 1', 'beta', 'app 3')`,
      );
    });
    afterAll(() => listApp.close());

    const names = async (query: Record<string, unknown>) => {
      const page = (await listApp.http.get('/api/v1/endpoints').query(query).set(bearer(token)).expect(200)).body as PageBody;
      return page.items.map((e) => e.name);
    };

    it('carries the soonest current expiry on every row, null without a certificate', async () => {
      const page = (await listApp.http.get('/api/v1/endpoints').set(bearer(token)).expect(200)).body as {
        items: { name: string; soonestNotAfter: string | null; daysRemaining: number | null }[];
      };
      const byName = Object.fromEntries(page.items.map((e) => [e.name, [e.daysRemaining, e.soonestNotAfter]]));
      const at = (days: number) => new Date(listApp.clock.now().getTime() + days * DAY + HOUR).toISOString();
      expect(byName).toEqual({
        'app 1': [20, at(20)],
        'App 2': [-6, at(-6)],
        'app 3': [400, at(400)],
        'app 10': [100, at(100)],
        beta: [null, null],
      });
      const one = (await listApp.http.get(`/api/v1/endpoints/${ids['app 1']}`).set(bearer(token)).expect(200)).body as {
        daysRemaining: number;
      };
      expect(one.daysRemaining).toBe(20);
    });

    it.each<[Record<string, unknown>, string[]]>([
      [{}, ['app 1', 'App 2', 'app 3', 'app 10', 'beta']],
      [{ sort: 'name' }, ['app 1', 'App 2', 'app 3', 'app 10', 'beta']],
      [{ sort: '-name' }, ['beta', 'app 10', 'app 3', 'App 2', 'app 1']],
      [{ sort: 'daysRemaining' }, ['App 2', 'app 1', 'app 10', 'app 3', 'beta']],
      [{ sort: '-daysRemaining' }, ['app 3', 'app 10', 'app 1', 'App 2', 'beta']],
      [{ sort: 'daysRemaining', limit: 2, offset: 1 }, ['app 1', 'app 10']],
      [{ sort: 'lastScannedAt' }, ['app 1', 'app 3', 'beta']],
      [{ sort: '-lastScannedAt' }, ['beta', 'app 3', 'app 1']],
      [{ sort: 'createdAt' }, ['app 10', 'beta', 'App 2', 'app 1', 'app 3']],
      [{ sort: '-createdAt' }, ['app 3', 'app 1', 'App 2', 'beta', 'app 10']],
      [{ q: 'app', sort: '-name' }, ['app 10', 'app 3', 'App 2', 'app 1']],
    ])('sorts %j', async (query, expected) => {
      const sorted = await names(query);
      // Never scanned: after the scanned ones in both directions, in an order of their own.
      if (String(query.sort).endsWith('lastScannedAt')) {
        expect(sorted.slice(0, 3)).toEqual(expected);
        expect(sorted.slice(3).sort()).toEqual(['App 2', 'app 10'].sort());
      } else expect(sorted).toEqual(expected);
    });

    it.each([
      [0, ['App 2']],
      [19, ['App 2']],
      [20, ['App 2', 'app 1']],
      [100, ['App 2', 'app 1', 'app 10']],
      [3650, ['App 2', 'app 1', 'app 10', 'app 3']],
    ])('filters expires_within=%i, expired included, and counts them', async (days, expected) => {
      const page = (
        await listApp.http.get('/api/v1/endpoints').query({ expires_within: days, sort: 'daysRemaining' }).set(bearer(token)).expect(200)
      ).body as PageBody;
      expect(page.items.map((e) => e.name)).toEqual(expected);
      expect(page.totalCount).toBe(expected.length);
    });

    it('follows links moving to history and endpoints losing their certificates', async () => {
      await upload('App 2', await expiringIn(50));
      expect(await names({ expires_within: 60 })).toEqual(['app 1', 'App 2']);
      await listApp.app.get(DataSource).query('DELETE FROM endpoint_certificates WHERE endpoint_id = $1', [ids['app 1']]);
      const sorted = await names({ sort: 'daysRemaining' });
      expect(sorted.slice(0, 3)).toEqual(['App 2', 'app 10', 'app 3']);
      expect(sorted.slice(3).sort()).toEqual(['app 1', 'beta']);
    });

    it('counts days remaining at the time of the request', async () => {
      listApp.clock.advance(51 * DAY);
      const later = await login(listApp);
      const page = (await listApp.http.get('/api/v1/endpoints').query({ expires_within: 49 }).set(bearer(later)).expect(200)).body as {
        items: { name: string; daysRemaining: number }[];
      };
      expect(page.items.map((e) => [e.name, e.daysRemaining])).toEqual([
        ['App 2', -1],
        ['app 10', 49],
      ]);
    });
  });

  describe('bulk', () => {
    it('creates the good rows and reports every bad one without blocking', async () => {
      const taken = unique();
      await create({ name: 'existing', dnsName: taken });
      const twin = unique();
      const rows = [
        { name: 'good host', dnsName: unique() },
        { name: 'no dns' },
        'not an object',
        { name: 'good saml', type: 'saml', metadataUrl: `https://${unique()}/md` },
        { name: 'duplicate of existing', dnsName: taken },
        { name: 'twin one', dnsName: twin },
        { name: 'twin two', dnsName: twin },
        { name: 'bad port', dnsName: unique(), port: 'x' },
        { name: 'unknown scanner', dnsName: unique(), scannerId: '00000000-0000-4000-8000-000000000000' },
        { name: 'good manual', type: 'manual' },
      ];
      const response = await t.http.post('/api/v1/endpoints/bulk').set(bearer(admin)).send(rows).expect(200);
      const body = response.body as {
        results: { index: number; ok: boolean; status: number; error?: string; endpoint?: EndpointBody }[];
        created: number;
        failed: number;
      };
      expect(body.created).toBe(4);
      expect(body.failed).toBe(6);
      expect(body.results.map((r) => [r.index, r.status])).toEqual([
        [0, 201],
        [1, 400],
        [2, 400],
        [3, 201],
        [4, 409],
        [5, 201],
        [6, 409],
        [7, 400],
        [8, 400],
        [9, 201],
      ]);
      expect(body.results[1].error).toBe('dnsName is required for host endpoints');
      expect(body.results[7].error).toContain('port must be an integer number');
      expect(body.results[0].endpoint).toMatchObject({ name: 'good host', scannerId: defaultScannerId });
      for (const result of body.results.filter((r) => r.ok)) {
        await t.http.get(`/api/v1/endpoints/${result.endpoint!.id}`).set(bearer(admin)).expect(200);
      }
    });

    it('refuses a body that is not an array', async () => {
      const response = await t.http.post('/api/v1/endpoints/bulk').set(bearer(admin)).send({ name: 'x' }).expect(400);
      expect(response.text).toContain('JSON array');
    });
  });

  describe('tags of one endpoint', () => {
    it('are read and replaced as an array of strings', async () => {
      const endpoint = await create({ name: 'tagged', type: 'manual', tags: ['old'] });
      expect((await t.http.get(`/api/v1/endpoints/${endpoint.id}/tags`).set(bearer(admin)).expect(200)).body).toEqual(['old']);
      const replaced = await t.http
        .put(`/api/v1/endpoints/${endpoint.id}/tags`)
        .set(bearer(admin))
        .send(['env:prod', 'owner:ops', 'env:prod'])
        .expect(200);
      expect(replaced.body).toEqual(['env:prod', 'owner:ops']);
      expect((await t.http.get(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(200)).body).toMatchObject({
        tags: ['env:prod', 'owner:ops'],
      });
    });

    it('refuse a non-array, a bad tag, and an unknown endpoint', async () => {
      const endpoint = await create({ name: 'tagged2', type: 'manual', tags: ['keep'] });
      await t.http
        .put(`/api/v1/endpoints/${endpoint.id}/tags`)
        .set(bearer(admin))
        .send({ tags: ['x'] })
        .expect(400);
      const bad = await t.http.put(`/api/v1/endpoints/${endpoint.id}/tags`).set(bearer(admin)).send(['fine', '']).expect(400);
      expect(bad.text).toContain('tags[1]');
      await t.http.put(`/api/v1/endpoints/${endpoint.id}/tags`).set(bearer(admin)).send([1]).expect(400);
      expect((await t.http.get(`/api/v1/endpoints/${endpoint.id}/tags`).set(bearer(admin)).expect(200)).body).toEqual(['keep']);
      await t.http.put('/api/v1/endpoints/00000000-0000-4000-8000-000000000000/tags').set(bearer(admin)).send(['x']).expect(404);
    });
  });

  describe('scan history and TLS profile', () => {
    it('history is empty with X-Total-Count 0 before any scan, then newest first with paging', async () => {
      const endpoint = await create({ name: 'scanned', dnsName: unique() });
      const empty = await t.http.get(`/api/v1/endpoints/${endpoint.id}/history`).set(bearer(admin)).expect(200);
      expect(empty.body).toEqual([]);
      expect(empty.headers['x-total-count']).toBe('0');

      await sql.query(
        `INSERT INTO scan_history (endpoint_id, scanned_at, success, error, resolved_ip, chain_complete)
         VALUES ($1, now() - interval '2 hours', true, null, '192.0.2.1', true),
                ($1, now() - interval '1 hour', false, 'connection refused', null, null),
                ($1, now() - interval '3 hours', true, null, '192.0.2.9', false)`,
        [endpoint.id],
      );
      const history = await t.http.get(`/api/v1/endpoints/${endpoint.id}/history`).query({ limit: 2 }).set(bearer(admin)).expect(200);
      expect(history.headers['x-total-count']).toBe('3');
      expect((history.body as { success: boolean; error: string | null }[]).map((r) => [r.success, r.error])).toEqual([
        [false, 'connection refused'],
        [true, null],
      ]);
      const detail = (await t.http.get(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
      expect(detail).toMatchObject({ chainComplete: true, resolvedIp: '192.0.2.1' });
      await t.http.get(`/api/v1/endpoints/${endpoint.id}/history`).query({ limit: 5001 }).set(bearer(admin)).expect(400);
    });

    it('TLS profile is 404 for saml, manual and a host never profiled, and served once stored', async () => {
      const saml = await create({ name: 'p-saml', type: 'saml', metadataUrl: `https://${unique()}/md` });
      const manual = await create({ name: 'p-manual', type: 'manual' });
      const host = await create({ name: 'p-host', dnsName: unique() });
      for (const endpoint of [saml, manual, host])
        await t.http.get(`/api/v1/endpoints/${endpoint.id}/tls-profile`).set(bearer(admin)).expect(404);
      const versions = [{ version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] }];
      await sql.query(
        `INSERT INTO endpoint_tls_profiles (endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite) VALUES ($1, now(), $2, 'TLSv1.3', 'TLS_AES_128_GCM_SHA256')`,
        [host.id, JSON.stringify(versions)],
      );
      const profile = (await t.http.get(`/api/v1/endpoints/${host.id}/tls-profile`).set(bearer(admin)).expect(200)).body as Record<
        string,
        unknown
      >;
      expect(profile).toMatchObject({ versions, negotiatedVersion: 'TLSv1.3', negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256' });
    });
  });

  it('audits creates, updates and deletes', async () => {
    const endpoint = await create({ name: 'audited', type: 'manual' });
    await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ notes: 'x' }).expect(200);
    await t.http.delete(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).expect(204);
    const page = (await t.http.get('/api/v1/audit').query({ targetId: endpoint.id }).set(bearer(admin)).expect(200)).body as {
      items: { action: string }[];
    };
    expect(page.items.map((e) => e.action)).toEqual(['endpoint:delete', 'endpoint:update', 'endpoint:create']);
  });
});
