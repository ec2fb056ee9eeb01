import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { databaseUrl } from './support/test-database';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

interface Page {
  totalCount: number;
  items: { name: string }[];
}

/**
 * The list's and the search's totalCount come from the count cache (docs/performance.md,
 * "Counts"): each case shows the count stays exact when the rows change behind the API's back
 * (another connection, as another replica or psql would), and that the cache is really used.
 */
describe('exact totalCount from the count cache', () => {
  let t: TestApp;
  let admin: string;
  let other: Client;
  let countQueries: number;

  const total = async (query: string) =>
    ((await t.http.get(`/api/v1/endpoints?${query}`).set(bearer(admin)).expect(200)).body as Page).totalCount;
  const insertEndpoint = (client: Client, name: string, tags: string[] = []) =>
    client.query(`INSERT INTO endpoints (name, type, tags, search_text) VALUES ($1, 'manual', $2, lower($1))`, [name, tags]);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    other = new Client({ connectionString: databaseUrl(t.databaseName) });
    await other.connect();
    for (let i = 0; i < 5; i += 1) await insertEndpoint(other, `count-${i}`, i % 2 === 0 ? ['count:even'] : []);
    const dataSource = t.app.get(DataSource);
    const query = dataSource.query.bind(dataSource);
    jest.spyOn(dataSource, 'query').mockImplementation((text: string, ...rest: unknown[]) => {
      if (text.startsWith('SELECT count(*)')) countQueries += 1;
      return (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
    });
  });

  afterAll(async () => {
    await other.end();
    await t.close();
  });

  beforeEach(() => {
    countQueries = 0;
  });

  it('counts once, then answers from the cache while nothing counted changes', async () => {
    expect(await total('q=count-')).toBe(5);
    expect(await total('q=count-')).toBe(5);
    expect(await total('q=count-&tag=count:even')).toBe(3);
    expect(await total('q=count-&tag=count:even')).toBe(3);
    expect(countQueries).toBe(2);

    // What every scan writes (last scan time, error text) does not touch a counted column.
    await other.query(`UPDATE endpoints SET last_scanned_at = now(), last_scan_error = 'x', updated_at = now() WHERE name LIKE 'count-%'`);
    expect(await total('q=count-')).toBe(5);
    expect(countQueries).toBe(2);
  });

  it('sees an insert, a counted update and a delete made on another connection at once', async () => {
    await insertEndpoint(other, 'count-5', ['count:even']);
    expect(await total('q=count-')).toBe(6);
    expect(await total('q=count-&tag=count:even')).toBe(4);

    await other.query(`UPDATE endpoints SET tags = '{}' WHERE name = 'count-0'`);
    expect(await total('q=count-&tag=count:even')).toBe(3);
    expect(await total('q=count-&has_error=true')).toBe(0);
    await other.query(`UPDATE endpoints SET error_since = now() WHERE name = 'count-1'`);
    expect(await total('q=count-&has_error=true')).toBe(1);

    await other.query(`DELETE FROM endpoints WHERE name = 'count-5'`);
    expect(await total('q=count-')).toBe(5);
  });

  it('sees a write made through the API at once', async () => {
    expect(await total('q=count-')).toBe(5);
    await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name: 'count-api', type: 'manual' }).expect(201);
    expect(await total('q=count-')).toBe(6);
  });

  it('does not cache a count while a write is in flight, and sees it once committed', async () => {
    expect(await total('q=count-')).toBe(6);
    await other.query('BEGIN');
    await insertEndpoint(other, 'count-in-flight');
    countQueries = 0;
    expect(await total('q=count-')).toBe(6);
    expect(await total('q=count-')).toBe(6);
    expect(countQueries).toBe(2);
    await other.query('COMMIT');
    expect(await total('q=count-')).toBe(7);
    expect(await total('q=count-')).toBe(7);
    expect(countQueries).toBe(3);
  });

  it("keeps the search's total exact across a certificate and an endpoint added behind its back", async () => {
    const search = async () =>
      ((await t.http.get('/api/v1/search?q=counted-search').set(bearer(admin)).expect(200)).body as Page).totalCount;
    expect(await search()).toBe(0);
    await insertEndpoint(other, 'counted-search-endpoint');
    expect(await search()).toBe(1);
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       VALUES (repeat('ab', 32), repeat('cd', 20), '\\x00', '01', 'CN=counted-search', 'CN=counted-search', 'counted-search.example',
               '{}', 'counted-search.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true)`,
    );
    expect(await search()).toBe(2);
  });
});
