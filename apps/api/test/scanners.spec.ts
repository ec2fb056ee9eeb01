import { DataSource } from 'typeorm';
import { HOUR, MINUTE, SECOND } from './support/fake-clock';
import { bearer, createTestApp, login, type TestApp, createSignedInTestApp } from './support/test-app';

interface ScannerBody {
  id: string;
  name: string;
  isDefault: boolean;
  scanCronExpression: string;
  scanConcurrency: number;
  createdAt: string;
  lastUsedAt: string | null;
  online: boolean;
  token?: string;
}

describe('scanners', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  const list = async () => (await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as ScannerBody[];
  const create = async (body: Record<string, unknown>) =>
    (await t.http.post('/api/v1/scanners').set(bearer(admin)).send(body).expect(201)).body as ScannerBody;

  it('start with the default scanner, exactly one', async () => {
    const scanners = await list();
    expect(scanners.filter((s) => s.isDefault).map((s) => s.name)).toEqual(['default']);
  });

  it('are created with defaults and a token shown once, stored only as a hash', async () => {
    const scanner = await create({ name: 'dmz' });
    expect(scanner).toMatchObject({ name: 'dmz', isDefault: false, scanCronExpression: '0 * * * *', scanConcurrency: 5, lastUsedAt: null });
    expect(scanner.token).toMatch(/^stx_s_[A-Za-z0-9_-]{43}$/);
    const fetched = (await t.http.get(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).expect(200)).body as ScannerBody;
    expect(fetched).not.toHaveProperty('token');
    expect((await list()).every((s) => !('token' in s))).toBe(true);
    const rows = await t.app.get(DataSource).query<Record<string, unknown>[]>('SELECT * FROM scanners');
    expect(JSON.stringify(rows)).not.toContain(scanner.token);
  });

  it('refuse a duplicate name with 409 and bad settings with 400', async () => {
    await create({ name: 'unique-name' });
    await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'unique-name' }).expect(409);
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: 'x', scanCronExpression: '* * *' },
      { name: 'x', scanCronExpression: '61 * * * *' },
      { name: 'x', scanConcurrency: 0 },
      { name: 'x', scanConcurrency: 257 },
      { name: 'x', scanConcurrency: 2.5 },
      { name: 'x', isDefault: true },
    ]) {
      const response = await t.http.post('/api/v1/scanners').set(bearer(admin)).send(body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    const response = await t.http
      .post('/api/v1/scanners')
      .set(bearer(admin))
      .send({ name: 'x', scanCronExpression: '61 * * * *' })
      .expect(400);
    expect(response.text).toContain('scanCronExpression must be a 5-field cron expression: minute: "61" is outside 0-59');
  });

  it('PUT returns omitted settings to their defaults; PATCH changes only what it names', async () => {
    const scanner = await create({ name: 'edit-me', scanCronExpression: '*/5 * * * *', scanConcurrency: 20 });
    const patched = (await t.http.patch(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).send({ scanConcurrency: 7 }).expect(200))
      .body as ScannerBody;
    expect(patched).toMatchObject({ name: 'edit-me', scanCronExpression: '*/5 * * * *', scanConcurrency: 7 });
    const replaced = (await t.http.put(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).send({ name: 'edited' }).expect(200))
      .body as ScannerBody;
    expect(replaced).toMatchObject({ name: 'edited', scanCronExpression: '0 * * * *', scanConcurrency: 5 });
    await t.http.put(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).send({ scanConcurrency: 3 }).expect(400);
    await t.http.put('/api/v1/scanners/00000000-0000-4000-8000-000000000000').set(bearer(admin)).send({ name: 'x' }).expect(404);
  });

  it('regenerate the token: the old one is 401, the new one works, everything else is kept, and it is audited', async () => {
    const scanner = await create({ name: 'rotating', scanCronExpression: '15 * * * *' });
    await t.http.get('/api/v1/me').set(bearer(scanner.token!)).expect(403); // authenticated, wrong route kind
    const regeneration = await t.http.post(`/api/v1/scanners/${scanner.id}/regenerate-token`).set(bearer(admin)).expect(200);
    const regenerated = regeneration.body as ScannerBody;
    expect(regenerated.token).not.toBe(scanner.token);
    expect(regenerated).toMatchObject({ id: scanner.id, name: 'rotating', scanCronExpression: '15 * * * *', isDefault: false });
    await t.http.get('/api/v1/me').set(bearer(scanner.token!)).expect(401);
    await t.http.get('/api/v1/me').set(bearer(regenerated.token!)).expect(403);

    const audit = await t.http
      .get('/api/v1/audit')
      .query({ action: 'scanner:regenerate_token', targetId: scanner.id })
      .set(bearer(admin))
      .expect(200);
    const page = audit.body as { items: Record<string, unknown>[]; totalCount: number };
    expect(page.totalCount).toBe(1);
    expect(page.items[0]).toMatchObject({
      action: 'scanner:regenerate_token',
      targetType: 'scanner',
      targetId: scanner.id,
      actor: 'admin@certkeeper.test',
    });
    expect(page.items[0].requestId).toBe(regeneration.headers['x-request-id']);
  });

  it('record lastUsedAt when a scanner authenticates', async () => {
    const scanner = await create({ name: 'busy' });
    await t.http.get('/api/v1/me').set(bearer(scanner.token!)).expect(403);
    const fetched = (await t.http.get(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).expect(200)).body as ScannerBody;
    expect(fetched.lastUsedAt).not.toBeNull();
  });

  it("say whether each is online: called in no longer ago than twice its schedule's longest gap and at least 10 minutes", async () => {
    const app = await createTestApp();
    try {
      const online = async () => {
        const token = await login(app); // afresh: the clock moves past a session's idle limit
        const rows = (await app.http.get('/api/v1/scanners').set(bearer(token)).expect(200)).body as ScannerBody[];
        const one = (await app.http.get(`/api/v1/scanners/${rows[0].id}`).set(bearer(token)).expect(200)).body as ScannerBody;
        expect(rows.find((row) => row.id === one.id)!.online).toBe(one.online);
        return Object.fromEntries(rows.map((row) => [row.name, row.online]));
      };
      const admin = await login(app);
      const create = async (name: string, scanCronExpression: string) =>
        (await app.http.post('/api/v1/scanners').set(bearer(admin)).send({ name, scanCronExpression }).expect(201)).body as ScannerBody;
      const [fast, hourly] = [await create('fast', '*/5 * * * *'), await create('hourly', '0 * * * *')];
      const callIn = (scanner: ScannerBody) => app.http.get('/api/v1/me').set(bearer(scanner.token!)).expect(403);

      expect(await online()).toEqual({ default: false, fast: false, hourly: false });
      await callIn(fast);
      await callIn(hourly);
      expect(await online()).toMatchObject({ fast: true, hourly: true });
      app.clock.advance(10 * MINUTE);
      expect(await online()).toMatchObject({ fast: true, hourly: true });
      app.clock.advance(SECOND);
      expect(await online()).toMatchObject({ fast: false, hourly: true });
      app.clock.advance(2 * HOUR - 10 * MINUTE - SECOND);
      expect(await online()).toMatchObject({ fast: false, hourly: true });
      app.clock.advance(SECOND);
      expect(await online()).toMatchObject({ fast: false, hourly: false });
      await callIn(fast);
      expect(await online()).toMatchObject({ fast: true, hourly: false });
    } finally {
      await app.close();
    }
  });

  describe('the default', () => {
    it('moves with POST /default, leaving exactly one', async () => {
      const scanner = await create({ name: 'next-default' });
      const moved = (await t.http.post(`/api/v1/scanners/${scanner.id}/default`).set(bearer(admin)).expect(200)).body as ScannerBody;
      expect(moved.isDefault).toBe(true);
      expect((await list()).filter((s) => s.isDefault).map((s) => s.id)).toEqual([scanner.id]);
      await t.http.post(`/api/v1/scanners/${scanner.id}/default`).set(bearer(admin)).expect(200);
      expect((await list()).filter((s) => s.isDefault)).toHaveLength(1);
    });

    it('cannot be deleted (409), nor can the only scanner', async () => {
      const fresh = await createTestApp();
      try {
        const token = await login(fresh);
        const [only] = (await fresh.http.get('/api/v1/scanners').set(bearer(token)).expect(200)).body as ScannerBody[];
        const onlyResponse = await fresh.http.delete(`/api/v1/scanners/${only.id}`).set(bearer(token)).expect(409);
        expect(onlyResponse.text).toContain('only scanner');
        const other = (await fresh.http.post('/api/v1/scanners').set(bearer(token)).send({ name: 'other' }).expect(201))
          .body as ScannerBody;
        const defaultResponse = await fresh.http.delete(`/api/v1/scanners/${only.id}`).set(bearer(token)).expect(409);
        expect(defaultResponse.text).toContain('make another scanner the default first');
        await fresh.http.post(`/api/v1/scanners/${other.id}/default`).set(bearer(token)).expect(200);
        await fresh.http.delete(`/api/v1/scanners/${only.id}`).set(bearer(token)).expect(204);
        const remaining = (await fresh.http.get('/api/v1/scanners').set(bearer(token)).expect(200)).body as ScannerBody[];
        expect(remaining.map((s) => [s.name, s.isDefault])).toEqual([['other', true]]);
      } finally {
        await fresh.close();
      }
    });

    it('is enforced by the database: a transaction that leaves no default, or two, fails', async () => {
      const dataSource = t.app.get(DataSource);
      await expect(dataSource.query('UPDATE scanners SET is_default = false')).rejects.toThrow('exactly one scanner must be the default');
      await expect(dataSource.query('UPDATE scanners SET is_default = true')).rejects.toThrow(/scanners_single_default_idx/);
      const defaults = await dataSource.query<{ count: string }[]>('SELECT count(*) FROM scanners WHERE is_default');
      expect(defaults[0].count).toBe('1');
    });

    it('survives concurrent moves: still exactly one default', async () => {
      const a = await create({ name: 'race-a' });
      const b = await create({ name: 'race-b' });
      await Promise.all([a, b, a, b].map((s) => t.http.post(`/api/v1/scanners/${s.id}/default`).set(bearer(admin)).expect(200)));
      expect((await list()).filter((s) => s.isDefault)).toHaveLength(1);
    });
  });

  it('audits every change with its actor', async () => {
    const scanner = await create({ name: 'audited' });
    await t.http.patch(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).send({ scanConcurrency: 9 }).expect(200);
    await t.http.delete(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).expect(204);
    const page = (await t.http.get('/api/v1/audit').query({ targetId: scanner.id }).set(bearer(admin)).expect(200)).body as {
      items: { action: string }[];
    };
    expect(page.items.map((e) => e.action)).toEqual(['scanner:delete', 'scanner:update', 'scanner:create']);
  });

  it('audit paging: the envelope, limits and bad parameters', async () => {
    const page = (await t.http.get('/api/v1/audit').query({ limit: 2, offset: 1 }).set(bearer(admin)).expect(200)).body as Record<
      string,
      unknown
    >;
    expect(page).toMatchObject({ limit: 2, offset: 1, totalCount: expect.any(Number) });
    expect((page.items as unknown[]).length).toBeLessThanOrEqual(2);
    await t.http.get('/api/v1/audit').query({ limit: 501 }).set(bearer(admin)).expect(400);
    await t.http.get('/api/v1/audit').query({ offset: -1 }).set(bearer(admin)).expect(400);
    await t.http.get('/api/v1/audit').query({ limit: 'all' }).set(bearer(admin)).expect(400);
  });
});
