import { DataSource } from 'typeorm';
import { bearer, createScanner, createTestApp, createUser, login, type TestApp } from './support/test-app';

interface NetworkBody {
  id: string;
  name: string;
  ranges: string[];
  ports: number[];
  scannerId: string | null;
  scanCronExpression: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  lastSweepAt: string | null;
}

const BASE = '/api/v1/discovery/networks';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('discovery networks', () => {
  let t: TestApp;
  let admin: string;
  let defaultScannerId: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    const scanners = (await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as { id: string; isDefault: boolean }[];
    defaultScannerId = scanners.find((s) => s.isDefault)!.id;
  });
  afterAll(() => t.close());

  const create = async (body: Record<string, unknown>) =>
    (await t.http.post(BASE).set(bearer(admin)).send(body).expect(201)).body as NetworkBody;
  const get = async (id: string) => (await t.http.get(`${BASE}/${id}`).set(bearer(admin)).expect(200)).body as NetworkBody;
  const tableSnapshot = () => t.app.get(DataSource).query<unknown[]>('SELECT * FROM discovery_networks ORDER BY id');

  it('are created with defaults, the default scanner and normalised ranges, and read back', async () => {
    const network = await create({ name: 'office', ranges: ['10.0.0.5/24', '2001:DB8:0:0::1-2001:db8::ff', '192.0.2.7'] });
    expect(network).toEqual({
      id: expect.any(String),
      name: 'office',
      ranges: ['10.0.0.0/24', '2001:db8::1-2001:db8::ff', '192.0.2.7'],
      ports: [443],
      scannerId: defaultScannerId,
      scanCronExpression: '0 2 * * *',
      enabled: true,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      lastSweepAt: null,
    });
    expect(await get(network.id)).toEqual(network);
    const all = (await t.http.get(BASE).set(bearer(admin)).expect(200)).body as NetworkBody[];
    expect(all.map((n) => n.id)).toContain(network.id);
    await t.http.get(`${BASE}/${UNKNOWN_ID}`).set(bearer(admin)).expect(404);
    await t.http.get(`${BASE}/not-a-uuid`).set(bearer(admin)).expect(400);
  });

  it('accept every explicit field, including a named scanner and exactly 65,536 addresses', async () => {
    const scanner = await createScanner(t);
    const network = await create({
      name: 'big',
      ranges: ['10.1.0.0/16'],
      ports: [8443, 443, 636],
      scannerId: scanner.id,
      scanCronExpression: '*/30 * * * *',
      enabled: false,
    });
    expect(network).toMatchObject({ ranges: ['10.1.0.0/16'], ports: [8443, 443, 636], scannerId: scanner.id, enabled: false });
    expect(network.scanCronExpression).toBe('*/30 * * * *');
  });

  it('PUT returns omitted fields to their defaults; PATCH changes only what it names', async () => {
    const scanner = await createScanner(t);
    const network = await create({
      name: 'edit-me',
      ranges: ['192.0.2.0/28'],
      ports: [8443],
      scannerId: scanner.id,
      scanCronExpression: '5 4 * * *',
      enabled: false,
    });
    const patched = (
      await t.http
        .patch(`${BASE}/${network.id}`)
        .set(bearer(admin))
        .send({ ports: [443, 993] })
        .expect(200)
    ).body as NetworkBody;
    expect(patched).toMatchObject({ name: 'edit-me', ranges: ['192.0.2.0/28'], ports: [443, 993], scannerId: scanner.id, enabled: false });
    expect(patched.scanCronExpression).toBe('5 4 * * *');
    const renamed = (await t.http.patch(`${BASE}/${network.id}`).set(bearer(admin)).send({ name: 'edited', enabled: true }).expect(200))
      .body as NetworkBody;
    expect(renamed).toMatchObject({ name: 'edited', enabled: true, ports: [443, 993] });

    const replaced = (
      await t.http
        .put(`${BASE}/${network.id}`)
        .set(bearer(admin))
        .send({ name: 'replaced', ranges: ['198.51.100.1'] })
        .expect(200)
    ).body as NetworkBody;
    expect(replaced).toMatchObject({
      id: network.id,
      name: 'replaced',
      ranges: ['198.51.100.1'],
      ports: [443],
      scannerId: defaultScannerId,
      scanCronExpression: '0 2 * * *',
      enabled: true,
      createdAt: network.createdAt,
    });
    await t.http.put(`${BASE}/${network.id}`).set(bearer(admin)).send({ name: 'no-ranges' }).expect(400);
    await t.http
      .put(`${BASE}/${UNKNOWN_ID}`)
      .set(bearer(admin))
      .send({ name: 'x', ranges: ['192.0.2.1'] })
      .expect(404);
    await t.http.patch(`${BASE}/${UNKNOWN_ID}`).set(bearer(admin)).send({ enabled: false }).expect(404);
  });

  it('DELETE removes the network; a second DELETE is 404', async () => {
    const network = await create({ name: 'doomed', ranges: ['192.0.2.1'] });
    await t.http.delete(`${BASE}/${network.id}`).set(bearer(admin)).expect(204);
    await t.http.get(`${BASE}/${network.id}`).set(bearer(admin)).expect(404);
    await t.http.delete(`${BASE}/${network.id}`).set(bearer(admin)).expect(404);
  });

  it('refuse bad input with 400, one line per problem, and change nothing', async () => {
    const existing = await create({ name: 'stable', ranges: ['192.0.2.0/30'] });
    const before = await tableSnapshot();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ranges: ['192.0.2.1'] }, ['name']],
      [{ name: '', ranges: ['192.0.2.1'] }, ['name']],
      [{ name: 'x'.repeat(201), ranges: ['192.0.2.1'] }, ['name']],
      [{ name: 'x' }, ['ranges']],
      [{ name: 'x', ranges: [] }, ['ranges must hold at least one entry']],
      [{ name: 'x', ranges: '10.0.0.0/24' }, ['ranges must be an array']],
      [{ name: 'x', ranges: Array.from({ length: 65 }, (_, i) => `192.0.2.${i}`) }, ['ranges holds 65 entries; at most 64']],
      [{ name: 'x', ranges: ['10.0.0.9-10.0.0.1'] }, ['ranges[0] "10.0.0.9-10.0.0.1" is reversed']],
      [{ name: 'x', ranges: ['10.0.0.0/33'] }, ['ranges[0] "10.0.0.0/33" has prefix /33, out of range for IPv4']],
      [{ name: 'x', ranges: ['2001:db8::/129'] }, ['has prefix /129, out of range for IPv6']],
      [{ name: 'x', ranges: ['10.0.0.0/15'] }, ['covers 131,072 addresses']],
      [{ name: 'x', ranges: ['10.0.0.0/16', '10.1.0.0/31'] }, ['ranges cover 65,538 distinct addresses in all']],
      [{ name: 'x', ranges: ['10.0.0.1-2001:db8::1'] }, ['mixes IPv4 and IPv6']],
      [{ name: 'x', ranges: ['not-an-address'] }, ['is not an IPv4 or IPv6 address']],
      [{ name: 'x', ranges: ['192.0.2.256'] }, ['ranges[0]']],
      [{ name: 'x', ranges: [42] }, ['ranges[0] must be a string']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: [0] }, ['ports[0] must be an integer from 1 to 65535']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: [65536] }, ['ports[0] must be an integer from 1 to 65535']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: [443, 443] }, ['ports[1] repeats port 443']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: [] }, ['ports must hold at least one port']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: Array.from({ length: 33 }, (_, i) => i + 1) }, ['at most 32']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: ['443'] }, ['ports[0]']],
      [{ name: 'x', ranges: ['192.0.2.1'], scanCronExpression: '61 * * * *' }, ['scanCronExpression must be a 5-field cron expression']],
      [{ name: 'x', ranges: ['192.0.2.1'], scanCronExpression: '* * *' }, ['scanCronExpression']],
      [{ name: 'x', ranges: ['192.0.2.1'], enabled: 'yes' }, ['enabled']],
      [{ name: 'x', ranges: ['192.0.2.1'], scannerId: 'nope' }, ['scannerId must be a UUID or null']],
      [{ name: 'x', ranges: ['192.0.2.1'], scannerId: UNKNOWN_ID }, ['scannerId: no scanner has this id']],
      [{ name: 'x', ranges: ['192.0.2.1'], lastSweepAt: null }, ['lastSweepAt']],
      [{ name: null, ranges: ['192.0.2.1'] }, ['name must be a string']],
      [{ name: 'x', ranges: null }, ['ranges must be an array']],
      [{ name: 'x', ranges: ['192.0.2.1'], ports: null }, ['ports must be an array']],
      [{ name: 'x', ranges: ['192.0.2.1'], enabled: null }, ['enabled must be a boolean']],
      [{ name: 'x', ranges: ['192.0.2.1'], scanCronExpression: null }, ['scanCronExpression must be a 5-field cron expression']],
    ];
    for (const [body, fragments] of cases) {
      for (const [method, url] of [
        ['post', BASE],
        ['put', `${BASE}/${existing.id}`],
        ['patch', `${BASE}/${existing.id}`],
      ] as const) {
        // PATCH does not require name and ranges.
        if (method === 'patch' && (fragments[0] === 'name' || fragments[0] === 'ranges') && !('name' in body && 'ranges' in body)) continue;
        const response = await t.http[method](url).set(bearer(admin)).send(body);
        expect({ method, body, status: response.status }).toEqual({ method, body, status: 400 });
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        for (const fragment of fragments) expect({ body, text: response.text }).toEqual({ body, text: expect.stringContaining(fragment) });
      }
    }
    expect(await tableSnapshot()).toEqual(before);
  });

  it('report every problem of one request, one per line', async () => {
    const response = await t.http
      .post(BASE)
      .set(bearer(admin))
      .send({ name: 'x', ranges: ['10.0.0.9-10.0.0.1', '10.0.0.0/33', 'fe80::1-10.0.0.1'], ports: [0, 443, 443] })
      .expect(400);
    const lines = response.text.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringContaining('ranges[0] "10.0.0.9-10.0.0.1" is reversed: 10.0.0.9 comes after 10.0.0.1'),
      expect.stringContaining('ranges[1] "10.0.0.0/33" has prefix /33'),
      expect.stringContaining('ranges[2] "fe80::1-10.0.0.1" mixes IPv4 and IPv6'),
      expect.stringContaining('ports[0] must be an integer from 1 to 65535'),
      expect.stringContaining('ports[2] repeats port 443'),
    ]);
  });

  it('refuse a duplicate name with 409 on create, PUT and PATCH, changing nothing', async () => {
    const first = await create({ name: 'taken', ranges: ['192.0.2.1'] });
    const second = await create({ name: 'other', ranges: ['192.0.2.2'] });
    const before = await tableSnapshot();
    await t.http
      .post(BASE)
      .set(bearer(admin))
      .send({ name: 'taken', ranges: ['192.0.2.3'] })
      .expect(409);
    await t.http
      .put(`${BASE}/${second.id}`)
      .set(bearer(admin))
      .send({ name: 'taken', ranges: ['192.0.2.3'] })
      .expect(409);
    await t.http
      .patch(`${BASE}/${second.id}`)
      .set(bearer(admin))
      .send({ name: 'taken', ports: [1] })
      .expect(409);
    expect(await tableSnapshot()).toEqual(before);
    expect((await get(first.id)).name).toBe('taken');
  });

  it('keep the scanner when its token is regenerated and read scannerId null after it is deleted', async () => {
    const scanner = await createScanner(t);
    const network = await create({ name: 'pinned', ranges: ['192.0.2.0/29'], scannerId: scanner.id });
    await t.http.post(`/api/v1/scanners/${scanner.id}/regenerate-token`).set(bearer(admin)).expect(200);
    expect((await get(network.id)).scannerId).toBe(scanner.id);
    await t.http.delete(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).expect(204);
    const orphan = await get(network.id);
    expect(orphan).toMatchObject({ scannerId: null, name: 'pinned', ranges: ['192.0.2.0/29'] });
    // Other changes leave it unassigned; naming a scanner assigns it again.
    expect(
      ((await t.http.patch(`${BASE}/${network.id}`).set(bearer(admin)).send({ enabled: false }).expect(200)).body as NetworkBody).scannerId,
    ).toBeNull();
    const reassigned = (await t.http.patch(`${BASE}/${network.id}`).set(bearer(admin)).send({ scannerId: null }).expect(200))
      .body as NetworkBody;
    expect(reassigned.scannerId).toBe(defaultScannerId);
  });

  it('need discovery:view to read and discovery:edit to write', async () => {
    const network = await create({ name: 'guarded', ranges: ['192.0.2.9'] });
    const viewer = await createUser(t, 'viewer');
    const operator = await createUser(t, 'operator');
    const scanner = await createScanner(t);
    const body = { name: 'by-operator', ranges: ['192.0.2.10'] };

    await t.http.get(BASE).expect(401);
    await t.http.get(`${BASE}/${network.id}`).expect(401);
    await t.http.post(BASE).send(body).expect(401);
    await t.http.put(`${BASE}/${network.id}`).send(body).expect(401);
    await t.http.patch(`${BASE}/${network.id}`).send({ enabled: false }).expect(401);
    await t.http.delete(`${BASE}/${network.id}`).expect(401);

    for (const token of [viewer.token, scanner.token]) {
      await t.http.get(BASE).set(bearer(token)).expect(403);
      await t.http.get(`${BASE}/${network.id}`).set(bearer(token)).expect(403);
      await t.http.post(BASE).set(bearer(token)).send(body).expect(403);
      await t.http.put(`${BASE}/${network.id}`).set(bearer(token)).send(body).expect(403);
      await t.http.patch(`${BASE}/${network.id}`).set(bearer(token)).send({ enabled: false }).expect(403);
      await t.http.delete(`${BASE}/${network.id}`).set(bearer(token)).expect(403);
    }
    expect(await get(network.id)).toMatchObject({ name: 'guarded', enabled: true });

    await t.http.get(BASE).set(bearer(operator.token)).expect(200);
    await t.http.get(`${BASE}/${network.id}`).set(bearer(operator.token)).expect(200);
    const created = (await t.http.post(BASE).set(bearer(operator.token)).send(body).expect(201)).body as NetworkBody;
    await t.http.patch(`${BASE}/${created.id}`).set(bearer(operator.token)).send({ enabled: false }).expect(200);
    await t.http.put(`${BASE}/${created.id}`).set(bearer(operator.token)).send(body).expect(200);
    await t.http.delete(`${BASE}/${created.id}`).set(bearer(operator.token)).expect(204);
  });

  it('audit create, update and delete with their actor', async () => {
    const network = await create({ name: 'audited', ranges: ['192.0.2.20'] });
    await t.http
      .patch(`${BASE}/${network.id}`)
      .set(bearer(admin))
      .send({ ports: [8443] })
      .expect(200);
    await t.http
      .put(`${BASE}/${network.id}`)
      .set(bearer(admin))
      .send({ name: 'audited-2', ranges: ['192.0.2.21'] })
      .expect(200);
    await t.http.delete(`${BASE}/${network.id}`).set(bearer(admin)).expect(204);
    const page = (await t.http.get('/api/v1/audit').query({ targetId: network.id }).set(bearer(admin)).expect(200)).body as {
      items: { action: string; targetType: string; actor: string }[];
    };
    expect(page.items.map((e) => e.action)).toEqual(['network:delete', 'network:update', 'network:update', 'network:create']);
    expect(page.items.every((e) => e.targetType === 'network' && e.actor === 'admin@certkeeper.test')).toBe(true);
  });
});
