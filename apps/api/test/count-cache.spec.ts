import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from '../src/database/notifications';
import { eventually } from './support/eventually';
import { cutOffListener, databaseUrl } from './support/test-database';
import { bearer, createScanner, createTestApp, login, type TestApp } from './support/test-app';

interface Page {
  totalCount: number;
  items: { name: string }[];
}

/**
 * The list's and the search's totalCount come from the count cache (docs/performance.md,
 * "Counts"): each case shows the count follows the rows when they change through the API (at
 * once) or behind its back (another connection, as another replica or psql would: as soon as the
 * notification arrives), and that the cache is really used.
 */
describe('exact totalCount from the count cache', () => {
  let t: TestApp;
  let admin: string;
  let other: Client;
  let countQueries: number;

  const total = async (query: string) =>
    ((await t.http.get(`/api/v1/endpoints?${query}`).set(bearer(admin)).expect(200)).body as Page).totalCount;
  /** Expects what `read` answers once it is `expected`, or after 3 s: a notification takes milliseconds, not a request. */
  const expectEventually = async (read: () => Promise<number>, expected: number) =>
    expect(await eventually(read, (value) => value === expected)).toBe(expected);
  const eventuallyTotal = (query: string, expected: number) => expectEventually(() => total(query), expected);
  const listening = () => t.app.get(DatabaseNotifications).listening;
  const insertEndpoint = (client: Client, name: string, tags: string[] = []) =>
    client.query(`INSERT INTO endpoints (name, type, tags, search_text) VALUES ($1, 'manual', $2, lower($1))`, [name, tags]);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    other = new Client({ connectionString: databaseUrl(t.databaseName) });
    await other.connect();
    for (let i = 0; i < 5; i += 1) await insertEndpoint(other, `count-${i}`, i % 2 === 0 ? ['count:even'] : []);
    await eventually(listening, (value) => value);
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

  it('follows an insert, a counted update and a delete made on another connection', async () => {
    await insertEndpoint(other, 'count-5', ['count:even']);
    await eventuallyTotal('q=count-', 6);
    await eventuallyTotal('q=count-&tag=count:even', 4);

    await other.query(`UPDATE endpoints SET tags = '{}' WHERE name = 'count-0'`);
    await eventuallyTotal('q=count-&tag=count:even', 3);
    expect(await total('q=count-&has_error=true')).toBe(0);
    await other.query(`UPDATE endpoints SET error_since = now() WHERE name = 'count-1'`);
    await eventuallyTotal('q=count-&has_error=true', 1);

    await other.query(`DELETE FROM endpoints WHERE name = 'count-5'`);
    await eventuallyTotal('q=count-', 5);
  });

  it('sees a write made through the API at once', async () => {
    expect(await total('q=count-')).toBe(5);
    await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name: 'count-api', type: 'manual' }).expect(201);
    expect(await total('q=count-')).toBe(6);
  });

  it('counts without a write in flight, and with it once committed', async () => {
    expect(await total('q=count-')).toBe(6);
    await other.query('BEGIN');
    await insertEndpoint(other, 'count-in-flight');
    expect(await total('q=count-')).toBe(6);
    await other.query('COMMIT');
    await eventuallyTotal('q=count-', 7);
  });

  it('remembers nothing while it cannot hear notifications, and remembers again once it can', async () => {
    await cutOffListener(t.databaseName);
    await eventually(listening, (value) => !value);
    countQueries = 0;
    expect(await total('q=count-')).toBe(7);
    // Deaf, a write behind its back still counts at the next request.
    await insertEndpoint(other, 'count-while-deaf');
    expect(await total('q=count-')).toBe(8);
    expect(countQueries).toBe(2);

    await eventually(listening, (value) => value);
    countQueries = 0;
    expect(await total('q=count-')).toBe(8);
    expect(await total('q=count-')).toBe(8);
    expect(countQueries).toBe(1);
  });

  it('forgets every count after a request that may have written, even one that changed nothing, and not after a read', async () => {
    // A write that notifies nobody: with triggers off (as a restore might run), only the cache rule can forget.
    const silent = new Client({ connectionString: databaseUrl(t.databaseName) });
    await silent.connect();
    try {
      await silent.query(`SET session_replication_role = replica`);
      const before = await total('q=count-');
      await insertEndpoint(silent, 'count-unnotified');
      await t.http.get('/api/v1/endpoints?q=nothing-matches').set(bearer(admin)).expect(200);
      await t.http.head('/api/v1/endpoints?q=count-').set(bearer(admin)).expect(200);
      expect(await total('q=count-')).toBe(before);

      await t.http.delete(`/api/v1/endpoints/${randomUUID()}`).set(bearer(admin)).expect(404);
      expect(await total('q=count-')).toBe(before + 1);
    } finally {
      await silent.end();
    }
  });

  it("keeps every count over a scanner agent's post, whose writes reach it by notification", async () => {
    const silent = new Client({ connectionString: databaseUrl(t.databaseName) });
    await silent.connect();
    try {
      await silent.query(`SET session_replication_role = replica`);
      const scanner = await createScanner(t);
      const before = await total('q=count-');
      await insertEndpoint(silent, 'count-unnotified-by-agent');
      countQueries = 0;
      const answer = await t.http.post('/api/v1/scanner/results').set(bearer(scanner.token)).send({ results: [] }).expect(200);
      expect(answer.body).toEqual({ results: [] });
      expect(await total('q=count-')).toBe(before);
      expect(countQueries).toBe(0);
    } finally {
      await silent.end();
    }
  });

  it('keeps counts over findings until their codes change, whoever changes them, and not for a write leaving them as they were', async () => {
    // Counted before the insert, so the counts that show it are taken after its notification arrived.
    await total('q=count-&finding=expired');
    await total('q=count-&has_findings=true');
    await other.query(
      `INSERT INTO endpoint_findings (endpoint_id, codes) SELECT id, '{expired}' FROM endpoints WHERE name IN ('count-0', 'count-1')`,
    );
    await eventuallyTotal('q=count-&finding=expired', 2);
    expect(await total('q=count-&has_findings=true')).toBe(2);
    countQueries = 0;
    expect(await total('q=count-&finding=expired')).toBe(2);
    expect(await total('q=count-&has_findings=true')).toBe(2);
    expect(countQueries).toBe(0);

    // What a host result writes beside the codes (its presented chain) leaves the counts cached.
    await other.query(`UPDATE endpoint_findings SET presented_chain = '{abc}', codes = codes WHERE true`);
    await other.query(`INSERT INTO endpoint_findings (endpoint_id) SELECT id FROM endpoints WHERE name = 'count-2'`);
    // One session's notifications arrive in commit order: once the certificate inserted after those
    // writes shows in its list's count, a notification of theirs would have arrived before it.
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       VALUES (repeat('ef', 32), repeat('ef', 20), '\\x00', '01', 'CN=findings-marker', 'CN=findings-marker', 'findings-marker.example',
               '{}', 'findings-marker.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true)`,
    );
    const markers = async () =>
      ((await t.http.get('/api/v1/search?q=findings-marker').set(bearer(admin)).expect(200)).body as Page).totalCount;
    expect(await eventually(markers, (value) => value === 1)).toBe(1);
    const before = countQueries;
    expect(await total('q=count-&finding=expired')).toBe(2);
    expect(countQueries).toBe(before);

    await other.query(
      `UPDATE endpoint_findings SET codes = '{expired}' WHERE endpoint_id = (SELECT id FROM endpoints WHERE name = 'count-2')`,
    );
    await eventuallyTotal('q=count-&finding=expired', 3);
    await other.query(`UPDATE endpoint_findings SET codes = '{}' WHERE codes && '{expired}'`);
    await eventuallyTotal('q=count-&has_findings=true', 0);
  });

  it("keeps the search's total following a certificate and an endpoint added behind its back", async () => {
    const search = async () =>
      ((await t.http.get('/api/v1/search?q=counted-search').set(bearer(admin)).expect(200)).body as Page).totalCount;
    const searchEventually = async (expected: number) => expect(await eventually(search, (value) => value === expected)).toBe(expected);
    expect(await search()).toBe(0);
    await insertEndpoint(other, 'counted-search-endpoint');
    await searchEventually(1);
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       VALUES (repeat('ab', 32), repeat('cd', 20), '\\x00', '01', 'CN=counted-search', 'CN=counted-search', 'counted-search.example',
               '{}', 'counted-search.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true)`,
    );
    await searchEventually(2);
  });

  it('keeps the superseded filter’s total following whether links keep a renewal, written on another connection', async () => {
    // Two stored certificates: one on a current link of count-2, the other the renewal it comes to keep.
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       SELECT repeat(f, 32), repeat(f, 20), '\\x00', f, 'CN=counted-renewal', 'CN=counted-renewal', 'counted-renewal.example',
              '{}', 'counted-renewal.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true
         FROM unnest(ARRAY['e1', 'e2']) AS f`,
    );
    await other.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT id, repeat('e1', 32), 'manual', true, now() + interval '1 day', now(), now() FROM endpoints WHERE name = 'count-2'`,
    );
    expect(await total('q=count-&superseded=true')).toBe(0);
    expect(await total('q=count-&superseded=true')).toBe(0);
    expect(countQueries).toBe(1);

    await other.query(`UPDATE endpoint_certificates SET superseded_by = repeat('e2', 32) WHERE fingerprint = repeat('e1', 32)`);
    await eventuallyTotal('q=count-&superseded=true', 1);
    await other.query(`UPDATE endpoint_certificates SET superseded_by = NULL WHERE fingerprint = repeat('e1', 32)`);
    await eventuallyTotal('q=count-&superseded=true', 0);
  });

  it('keeps the active list’s total following links made current, historical or of another use on another connection, and not a re-sighting', async () => {
    const active = async (query: string) =>
      Number((await t.http.get(`/api/v1/certificates/active?limit=1&${query}`).set(bearer(admin)).expect(200)).headers['x-total-count']);
    const activeEventually = (query: string, expected: number) => expectEventually(() => active(query), expected);
    const link = (set: string) => other.query(`UPDATE endpoint_certificates SET ${set} WHERE fingerprint = repeat('a7', 32)`);
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       VALUES (repeat('a7', 32), repeat('a7', 20), '\\x00', 'a7', 'CN=counted-link', 'CN=counted-link', 'counted-link.example',
               '{}', 'counted-link.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true)`,
    );
    const before = await active('');
    const evenBefore = await active('tag=count:even');
    const manualBefore = await active('certUse=manual');
    countQueries = 0;
    expect(await active('')).toBe(before);
    expect(countQueries).toBe(0);

    await other.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT id, repeat('a7', 32), 'manual', true, now() + interval '1 day', now(), now() FROM endpoints WHERE name = 'count-4'`,
    );
    await activeEventually('', before + 1);
    await activeEventually('tag=count:even', evenBefore + 1);
    await activeEventually('certUse=manual', manualBefore + 1);

    // A re-sighting sets the link current again: no notification, the count stays cached. Notifications
    // of one session arrive in commit order, so once the marker certificate shows, the re-sighting's would have.
    await link('is_current = true, last_seen_at = now()');
    await other.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text,
              not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
       VALUES (repeat('a8', 32), repeat('a8', 20), '\\x00', 'a8', 'CN=link-marker', 'CN=link-marker', 'link-marker.example',
               '{}', 'link-marker.example', now(), now() + interval '1 day', 'ECDSA', 'ecdsa-with-SHA256', false, true)`,
    );
    const markers = async () => ((await t.http.get('/api/v1/search?q=link-marker').set(bearer(admin)).expect(200)).body as Page).totalCount;
    expect(await eventually(markers, (value) => value === 1)).toBe(1);
    countQueries = 0;
    expect(await active('')).toBe(before + 1);
    expect(countQueries).toBe(0);

    await link(`cert_use = 'tls'`);
    await activeEventually('certUse=manual', manualBefore);
    await link('is_current = false');
    await activeEventually('', before);
    await activeEventually('tag=count:even', evenBefore);
    await link('is_current = true');
    await activeEventually('', before + 1);
    await other.query(`DELETE FROM endpoint_certificates WHERE fingerprint = repeat('a7', 32)`);
    await activeEventually('', before);
  });

  it('counts the expiring list every time: its count depends on the clock', async () => {
    await t.http.get('/api/v1/certificates/expiring?days=30&limit=1').set(bearer(admin)).expect(200);
    await t.http.get('/api/v1/certificates/expiring?days=30&limit=1').set(bearer(admin)).expect(200);
    expect(countQueries).toBe(2);
  });
});
