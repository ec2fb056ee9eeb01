import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { mintCertificate, mintChain, type MintedCertificate } from '@certkeeper/domain/testing';
import { hostScanResult } from './support/scan-results';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');

interface Outcome {
  resultId: string;
  endpointId: string;
  status: string;
  code?: number;
}

/**
 * A post's host results are applied together, set-based, in one transaction (HostResultsService):
 * these are the cases where one result of a post depends on another, which one at a time never
 * had to consider.
 */
describe('scan results applied as a batch', () => {
  let t: TestApp;
  let admin: string;
  let scannerToken: string;
  let sql: DataSource;
  let names = 0;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
  });
  afterAll(() => t.close());

  const endpoint = async () => {
    names += 1;
    return (
      (
        await t.http
          .post('/api/v1/endpoints')
          .set(bearer(admin))
          .send({ name: `batch-${names}`, dnsName: `batch-${names}.example.com` })
          .expect(201)
      ).body as { id: string }
    ).id;
  };
  const post = async (results: unknown[]) =>
    ((await t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(200)).body as { results: Outcome[] })
      .results;
  const minutesAgo = (minutes: number) => new Date(t.clock.now().getTime() - minutes * 60_000);
  const hostResult = (endpointId: string, chain: MintedCertificate[], at = minutesAgo(0), overrides: Record<string, unknown> = {}) =>
    hostScanResult(endpointId, chain, at, overrides);
  const failure = (endpointId: string, at: Date) =>
    hostResult(endpointId, [], at, { success: false, error: 'connection refused', resolvedIp: null, tlsVersion: null, cipherSuite: null });
  const detail = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as {
      currentCertificates: { fingerprint: string; certUse: string }[];
      errorSince: string | null;
      lastScanError: string | null;
      lastScannedAt: string | null;
      chainComplete: boolean | null;
    };
  const current = async (id: string) => (await detail(id)).currentCertificates.map((c) => c.fingerprint);
  const count = async (query: string, values: unknown[]) => (await sql.query<{ n: number }[]>(query, values))[0].n;
  const historyCount = (id: string) => count('SELECT count(*)::int AS n FROM scan_history WHERE endpoint_id = $1', [id]);

  it('links one certificate presented by many endpoints, storing it and its chain once', async () => {
    const ids = await Promise.all([endpoint(), endpoint(), endpoint()]);
    const chain = await mintChain();
    const presented = [chain.leaf, chain.intermediate, chain.root];
    const outcomes = await post(ids.map((id) => hostResult(id, presented)));
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted', 'accepted']);
    for (const id of ids) {
      expect(await current(id)).toEqual([sha256(chain.leaf.der)]);
      expect(await detail(id)).toMatchObject({ chainComplete: true, errorSince: null });
    }
    const fingerprints = presented.map((c) => sha256(c.der));
    expect(await count('SELECT count(*)::int AS n FROM certificates WHERE fingerprint = ANY($1::text[])', [fingerprints])).toBe(3);
  });

  it('moves each endpoint’s soonest expiry with the certificates a post rotates, a statement for them all', async () => {
    const ids = await Promise.all([endpoint(), endpoint(), endpoint()]);
    const chain = await mintChain();
    const inDays = (days: number) => new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000 + days * 86_400_000);
    const leaves = await Promise.all(
      ids.map((_, i) => mintCertificate({ subject: `CN=soonest-${i}.example.com`, issuer: chain.intermediate, notAfter: inDays(30 + i) })),
    );
    await post(ids.map((id) => hostResult(id, [chain.leaf, chain.intermediate], minutesAgo(1))));
    await post(ids.map((id, i) => hostResult(id, [leaves[i], chain.intermediate])));
    const soonest = await sql.query<{ id: string; soonest: Date }[]>(
      'SELECT id, soonest_not_after AS soonest FROM endpoints WHERE id = ANY($1::uuid[])',
      [ids],
    );
    expect(Object.fromEntries(soonest.map((row) => [row.id, row.soonest.toISOString()]))).toEqual(
      Object.fromEntries(ids.map((id, i) => [id, inDays(30 + i).toISOString()])),
    );
  });

  it('stores the new certificates of a post that also presents known ones, and links each endpoint to its own', async () => {
    const [known, fresh] = await Promise.all([endpoint(), endpoint()]);
    const chain = await mintChain();
    await post([hostResult(known, [chain.leaf, chain.intermediate])]);
    const renewed = await mintCertificate({ subject: 'CN=renewed.example.com', issuer: chain.intermediate });
    const outcomes = await post([hostResult(known, [chain.leaf, chain.intermediate]), hostResult(fresh, [renewed, chain.intermediate])]);
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted']);
    expect(await current(known)).toEqual([sha256(chain.leaf.der)]);
    expect(await current(fresh)).toEqual([sha256(renewed.der)]);
    await t.http
      .get(`/api/v1/certificates/${sha256(renewed.der)}`)
      .set(bearer(admin))
      .expect(200);
  });

  it('stores again a certificate deleted since the last post, and links it again', async () => {
    const id = await endpoint();
    const chain = await mintChain();
    const leaf = sha256(chain.leaf.der);
    const intermediate = sha256(chain.intermediate.der);
    await post([hostResult(id, [chain.leaf, chain.intermediate], minutesAgo(20))]);
    // What a purge of history and unreferenced certificates could leave (docs/api-contract.md, maintenance).
    await sql.query('DELETE FROM endpoint_certificates WHERE endpoint_id = $1', [id]);
    await sql.query('DELETE FROM scan_history WHERE endpoint_id = $1', [id]);
    await sql.query('DELETE FROM certificates WHERE fingerprint = ANY($1::text[])', [[leaf, intermediate]]);

    await post([hostResult(id, [chain.leaf, chain.intermediate], minutesAgo(10))]);
    expect(await count('SELECT count(*)::int AS n FROM certificates WHERE fingerprint = ANY($1::text[])', [[leaf, intermediate]])).toBe(2);
    expect(await current(id)).toEqual([leaf]);
  });

  it('applies several results of one endpoint in a post oldest first, whatever their order in the post', async () => {
    const id = await endpoint();
    const [a, b] = await Promise.all([mintCertificate({ subject: 'CN=a.batch' }), mintCertificate({ subject: 'CN=b.batch' })]);
    const outcomes = await post([hostResult(id, [b], minutesAgo(10)), failure(id, minutesAgo(20)), hostResult(id, [a], minutesAgo(30))]);
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(await detail(id)).toMatchObject({ errorSince: null, lastScanError: null, lastScannedAt: minutesAgo(10).toISOString() });
    expect(await current(id)).toEqual([sha256(b.der)]);
    // a was current, then moved to history when b was seen: two links, one current.
    expect(await count('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1 AND NOT is_current', [id])).toBe(1);
    expect(await historyCount(id)).toBe(3);
  });

  it('keeps errorSince at the first failure of a run of failures posted together', async () => {
    const id = await endpoint();
    const cert = await mintCertificate({ subject: 'CN=failing.batch' });
    await post([failure(id, minutesAgo(10)), hostResult(id, [cert], minutesAgo(30)), failure(id, minutesAgo(20))]);
    expect(await detail(id)).toMatchObject({
      errorSince: minutesAgo(20).toISOString(),
      lastScanError: 'connection refused',
      lastScannedAt: minutesAgo(10).toISOString(),
    });
    // A failure never retires what the last successful scan saw.
    expect(await current(id)).toEqual([sha256(cert.der)]);
  });

  it('applies a late result in a post as history only, next to newer results of other endpoints', async () => {
    const [late, other] = await Promise.all([endpoint(), endpoint()]);
    const [a, b, c] = await Promise.all([
      mintCertificate({ subject: 'CN=a.late' }),
      mintCertificate({ subject: 'CN=b.late' }),
      mintCertificate({ subject: 'CN=c.late' }),
    ]);
    await post([hostResult(late, [a], minutesAgo(10))]);
    const outcomes = await post([hostResult(late, [b], minutesAgo(20)), hostResult(other, [c], minutesAgo(5))]);
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted']);
    expect(await current(late)).toEqual([sha256(a.der)]);
    expect(await detail(late)).toMatchObject({ lastScannedAt: minutesAgo(10).toISOString() });
    expect(await historyCount(late)).toBe(2);
    expect(await current(other)).toEqual([sha256(c.der)]);
  });

  it('takes a result id twice in one post once, whichever endpoint the copy names', async () => {
    const [first, second] = await Promise.all([endpoint(), endpoint()]);
    const cert = await mintCertificate({ subject: 'CN=twice.batch' });
    const result = hostResult(first, [cert], minutesAgo(10));
    const outcomes = await post([result, { ...result }, { ...result, endpointId: second }]);
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'duplicate', 'duplicate']);
    expect(await count('SELECT count(*)::int AS n FROM scan_history WHERE result_id = $1', [result.resultId])).toBe(1);
    expect(await current(second)).toEqual([]);
    expect(await detail(second)).toMatchObject({ lastScannedAt: null });
  });

  it('reports a refused result beside the accepted ones of the same post', async () => {
    const id = await endpoint();
    const cert = await mintCertificate({ subject: 'CN=mixed.batch' });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const outcomes = await post([hostResult(unknown, [cert]), hostResult(id, [cert]), { resultId: 'x', type: 'host' }]);
    expect(outcomes.map((o) => [o.status, o.code])).toEqual([
      ['rejected', 404],
      ['accepted', undefined],
      ['rejected', 400],
    ]);
    expect(await current(id)).toEqual([sha256(cert.der)]);
  });

  it('applies the other results of a post alone when the database refuses one of them', async () => {
    const [good, refused] = await Promise.all([endpoint(), endpoint()]);
    const cert = await mintCertificate({ subject: 'CN=refused.batch' });
    // Stands in for any error the batch's statements could meet for one result only.
    await sql.query(`CREATE FUNCTION refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.endpoint_id = '${refused}' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`);
    await sql.query('CREATE TRIGGER refuse_history BEFORE INSERT ON scan_history FOR EACH ROW EXECUTE FUNCTION refuse_history()');
    try {
      const results = [hostResult(refused, [cert]), hostResult(good, [cert])];
      await t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(500);
      expect(await current(good)).toEqual([sha256(cert.der)]);
      expect(await historyCount(good)).toBe(1);
      expect(await historyCount(refused)).toBe(0);
    } finally {
      await sql.query('DROP TRIGGER refuse_history ON scan_history; DROP FUNCTION refuse_history()');
    }
  });

  it('saves the TLS profiles of a post, with a history row only where one changed', async () => {
    const [steady, changing] = await Promise.all([endpoint(), endpoint()]);
    const cert = await mintCertificate({ subject: 'CN=profiles.batch' });
    const profile = (suite: string) => ({
      versions: [{ version: 'TLSv1.2', supported: true, cipherSuites: [suite] }],
      negotiatedVersion: 'TLSv1.2',
      negotiatedCipherSuite: suite,
    });
    const both = (at: Date, changed: string) => [
      hostResult(steady, [cert], at, { tlsProfile: profile('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256') }),
      hostResult(changing, [cert], at, { tlsProfile: profile(changed) }),
    ];
    await post(both(minutesAgo(20), 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'));
    await post(both(minutesAgo(10), 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'));
    const profileHistory = (id: string) =>
      count('SELECT count(*)::int AS n FROM endpoint_tls_profile_history WHERE endpoint_id = $1', [id]);
    expect(await profileHistory(steady)).toBe(1);
    expect(await profileHistory(changing)).toBe(2);
    const stored = (await t.http.get(`/api/v1/endpoints/${changing}/tls-profile`).set(bearer(admin)).expect(200)).body as {
      negotiatedCipherSuite: string;
      scannedAt: string;
    };
    expect(stored).toMatchObject({
      negotiatedCipherSuite: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
      scannedAt: minutesAgo(10).toISOString(),
    });
  });
});
