import { createHash, randomUUID } from 'node:crypto';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SWEEP_QUIET_LIMIT_MS, SweepsService } from '../src/modules/discovery/sweeps.service';
import { MINUTE } from './support/fake-clock';
import { hostScanResult } from './support/scan-results';
import { bearer, createScanner, createTestApp, createUser, login, type TestApp } from './support/test-app';
import { databaseUrl } from './support/test-database';

const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface Sweep {
  id: string;
  networkId: string;
  scannerId: string | null;
  status: string;
  requestedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  addressesTotal: number;
  addressesProbed: number;
  servicesFound: number;
  error: string | null;
}
interface Entry {
  id: string;
  networkId: string;
  address: string;
  port: number;
  hostnames: string[];
  fingerprint: string | null;
  commonName: string | null;
  sans: string[];
  issuerCommonName: string | null;
  notAfter: string | null;
  daysRemaining: number | null;
  status: string;
  endpointId: string | null;
  firstSeenAt: string;
  lastSeenAt: string;
}
interface Work {
  items: unknown[];
  sweeps: { sweepId: string; networkId: string; ranges: string[]; ports: number[] }[];
}

/**
 * Sweeps and the inbox through the scanner protocol, an agent played by the test (the real agent
 * sweeping real servers is agent-discovery.spec.ts): what a report may do, and what it may not.
 */
describe('discovery sweeps and the inbox', () => {
  let t: TestApp;
  let admin: string;
  let scanner: { id: string; token: string };
  let other: { id: string; token: string };
  let leafA: MintedCertificate;
  let leafB: MintedCertificate;
  let counter = 0;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    scanner = await createScanner(t);
    other = await createScanner(t);
    [leafA, leafB] = await Promise.all([
      mintCertificate({ subject: 'CN=a.sweep.test', sans: ['a.sweep.test', '*.wild.sweep.test', '10.9.0.1'] }),
      mintCertificate({ subject: 'CN=b.sweep.test', sans: ['b.sweep.test'] }),
    ]);
  });
  afterAll(() => t.close());

  const createNetwork = async (ranges: string[], ports = [443], scannerId = scanner.id) => {
    counter += 1;
    return (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: `net-${counter}`, ranges, ports, scannerId })
        .expect(201)
    ).body as { id: string };
  };
  const requestSweep = async (networkId: string) =>
    (await t.http.post(`/api/v1/discovery/networks/${networkId}/sweeps`).set(bearer(admin)).expect(202)).body as Sweep;
  const getSweep = async (id: string) => (await t.http.get(`/api/v1/discovery/sweeps/${id}`).set(bearer(admin)).expect(200)).body as Sweep;
  const work = async (token: string) => (await t.http.get('/api/v1/scanner/work').set(bearer(token)).expect(200)).body as Work;
  const start = (token: string, sweepId: string) => t.http.post(`/api/v1/scanner/sweeps/${sweepId}/start`).set(bearer(token));
  const report = async (token: string, reports: Record<string, unknown>[]) =>
    (await t.http.post('/api/v1/scanner/sweep-reports').set(bearer(token)).send({ reports }).expect(200)).body as {
      reports: { reportId: string; sweepId: string; status: string; code?: number; error?: string }[];
    };
  const finding = (address: string, port: number, leaf: MintedCertificate, reverseName: string | null = null) => ({
    address,
    port,
    reverseName,
    chain: [leaf.pem],
    tlsVersion: 'TLSv1.3',
    cipherSuite: 'TLS_AES_128_GCM_SHA256',
  });
  const batch = (sweepId: string, fields: Record<string, unknown> = {}) => ({
    reportId: randomUUID(),
    sweepId,
    addressesProbed: 0,
    findings: [],
    final: false,
    error: null,
    ...fields,
  });
  const inbox = async (query: Record<string, string> = {}) =>
    (await t.http.get('/api/v1/discovery/inbox').query(query).set(bearer(admin)).expect(200)).body as {
      items: Entry[];
      totalCount: number;
      limit: number;
      offset: number;
    };
  const entryAt = async (networkId: string, address: string, port: number) =>
    (await inbox({ networkId })).items.find((entry) => entry.address === address && entry.port === port)!;
  /** Queues, claims and runs a sweep of the network with these findings, completing it. */
  const sweepWith = async (networkId: string, findings: ReturnType<typeof finding>[]) => {
    const sweep = await requestSweep(networkId);
    await start(scanner.token, sweep.id).expect(200);
    const [outcome] = (await report(scanner.token, [batch(sweep.id, { findings, addressesProbed: 4, final: true })])).reports;
    expect(outcome.status).toBe('accepted');
    return getSweep(sweep.id);
  };

  it('are queued on request, listed to the assigned agent, claimed, reported with growing progress, and completed', async () => {
    const network = await createNetwork(['10.9.0.0/30'], [443, 8443]);
    const sweep = await requestSweep(network.id);
    expect(sweep).toEqual(
      expect.objectContaining({ networkId: network.id, scannerId: scanner.id, status: 'queued', addressesTotal: 4, addressesProbed: 0 }),
    );
    // One at a time per network.
    await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(409);

    expect((await work(scanner.token)).sweeps).toContainEqual({
      sweepId: sweep.id,
      networkId: network.id,
      ranges: ['10.9.0.0/30'],
      ports: [443, 8443],
    });
    expect((await work(other.token)).sweeps.map((s) => s.sweepId)).not.toContain(sweep.id);
    await start(other.token, sweep.id).expect(403);
    expect((await start(scanner.token, sweep.id).expect(200)).body).toEqual({
      sweepId: sweep.id,
      networkId: network.id,
      ranges: ['10.9.0.0/30'],
      ports: [443, 8443],
    });
    await start(scanner.token, sweep.id).expect(409); // claimed once
    expect((await work(scanner.token)).sweeps.map((s) => s.sweepId)).not.toContain(sweep.id);
    expect((await getSweep(sweep.id)).status).toBe('running');

    const first = batch(sweep.id, { addressesProbed: 2, findings: [finding('10.9.0.1', 443, leafA, 'Host1.Sweep.Test')] });
    expect((await report(scanner.token, [first])).reports).toEqual([{ reportId: first.reportId, sweepId: sweep.id, status: 'accepted' }]);
    expect(await getSweep(sweep.id)).toEqual(expect.objectContaining({ status: 'running', addressesProbed: 2, servicesFound: 1 }));
    // The same report again changes nothing; an older progress figure never moves progress back.
    expect((await report(scanner.token, [first])).reports[0].status).toBe('duplicate');
    await report(scanner.token, [batch(sweep.id, { addressesProbed: 1 })]);
    expect(await getSweep(sweep.id)).toEqual(expect.objectContaining({ addressesProbed: 2, servicesFound: 1 }));

    const last = batch(sweep.id, { addressesProbed: 4, final: true, findings: [finding('10.9.0.2', 8443, leafB)] });
    await report(scanner.token, [last]);
    const done = await getSweep(sweep.id);
    expect(done).toEqual(
      expect.objectContaining({ status: 'completed', addressesProbed: 4, servicesFound: 2, error: null, finishedAt: expect.any(String) }),
    );
    expect((await report(scanner.token, [last])).reports[0].status).toBe('duplicate');
    expect((await report(scanner.token, [batch(sweep.id)])).reports[0]).toEqual(expect.objectContaining({ status: 'rejected', code: 409 }));

    const networkAfter = (await t.http.get(`/api/v1/discovery/networks/${network.id}`).set(bearer(admin)).expect(200)).body as {
      lastSweepAt: string;
    };
    expect(networkAfter.lastSweepAt).toBe(done.finishedAt);
    const listed = await t.http.get(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(200);
    expect(listed.headers['x-total-count']).toBe('1');
    expect((listed.body as Sweep[]).map((s) => s.id)).toEqual([sweep.id]);

    // The inbox: one row per service, certificates from the global store, names from reverse DNS and DNS SANs.
    const entry = await entryAt(network.id, '10.9.0.1', 443);
    expect(entry).toEqual(
      expect.objectContaining({
        hostnames: ['host1.sweep.test', 'a.sweep.test', '*.wild.sweep.test'],
        fingerprint: fingerprintOf(leafA),
        commonName: 'a.sweep.test',
        sans: expect.arrayContaining(['a.sweep.test', '10.9.0.1']),
        status: 'new',
        endpointId: null,
        daysRemaining: expect.any(Number),
      }),
    );
    await t.http
      .get(`/api/v1/certificates/${fingerprintOf(leafA)}`)
      .set(bearer(admin))
      .expect(200);
    expect((await inbox({ networkId: network.id })).totalCount).toBe(2);
    expect((await inbox({ q: 'HOST1.sweep' })).items.map((e) => e.id)).toEqual([entry.id]);
  });

  it('refuse a report for a sweep of another scanner per item, storing nothing of it', async () => {
    const mine = await createNetwork(['10.9.1.0/30']);
    const theirs = await createNetwork(['10.9.2.0/30'], [443], other.id);
    const [my, their] = [await requestSweep(mine.id), await requestSweep(theirs.id)];
    await start(scanner.token, my.id).expect(200);
    await start(other.token, their.id).expect(200);
    const outcomes = await report(scanner.token, [
      batch(their.id, { addressesProbed: 3, findings: [finding('10.9.2.1', 443, leafA)] }),
      batch(my.id, { addressesProbed: 1, findings: [finding('10.9.1.1', 443, leafB)] }),
      batch(randomUUID()),
    ]);
    expect(outcomes.reports.map((o) => [o.status, o.code])).toEqual([
      ['rejected', 403],
      ['accepted', undefined],
      ['rejected', 404],
    ]);
    expect(await getSweep(their.id)).toEqual(expect.objectContaining({ addressesProbed: 0, servicesFound: 0 }));
    expect((await inbox({ networkId: theirs.id })).totalCount).toBe(0);
    expect((await inbox({ networkId: mine.id })).totalCount).toBe(1);
  });

  it('refuse a finding outside the sweep and malformed reports, keeping nothing of them', async () => {
    const network = await createNetwork(['10.9.3.0/30'], [443]);
    const sweep = await requestSweep(network.id);
    await start(scanner.token, sweep.id).expect(200);
    const outside = await report(scanner.token, [
      batch(sweep.id, { addressesProbed: 1, findings: [finding('10.9.3.1', 443, leafA), finding('10.9.4.1', 443, leafA)] }),
      batch(sweep.id, { findings: [finding('10.9.3.1', 8443, leafA)] }),
    ]);
    expect(outside.reports.map((o) => o.code)).toEqual([400, 400]);
    expect(outside.reports[0].error).toContain('10.9.4.1');
    expect((await inbox({ networkId: network.id })).totalCount).toBe(0);
    expect((await getSweep(sweep.id)).addressesProbed).toBe(0);

    const post = (body: unknown) =>
      t.http
        .post('/api/v1/scanner/sweep-reports')
        .set(bearer(scanner.token))
        .send(body as object);
    // A malformed report is refused on its own (code 400 in its outcome), as a malformed scan result is.
    const malformed = await report(scanner.token, [
      batch(sweep.id, { addressesProbed: -1 }),
      batch(sweep.id, { findings: [{ ...finding('10.9.3.1', 443, leafA), address: 'host.example' }] }),
      batch(sweep.id, { reportId: 'x' }),
      batch(sweep.id, { extra: 1 }),
    ]);
    expect(malformed.reports.map((o) => [o.status, o.code])).toEqual(Array(4).fill(['rejected', 400]));
    expect((await inbox({ networkId: network.id })).totalCount).toBe(0);
    expect((await getSweep(sweep.id)).addressesProbed).toBe(0);
    // A malformed envelope is still refused whole.
    await post({ reports: 'x' }).expect(400);
    await post({ reports: Array(101).fill({}) }).expect(400);
    // User tokens never speak the scanner protocol.
    await t.http.post('/api/v1/scanner/sweep-reports').set(bearer(admin)).send({ reports: [] }).expect(403);
    await t.http.post(`/api/v1/scanner/sweeps/${sweep.id}/start`).set(bearer(admin)).expect(403);
  });

  it('keep the good reports of a post when one holds a malformed finding, and name that finding', async () => {
    const network = await createNetwork(['10.9.7.0/30'], [443]);
    const sweep = await requestSweep(network.id);
    await start(scanner.token, sweep.id).expect(200);
    const outcomes = await report(scanner.token, [
      batch(sweep.id, { addressesProbed: 1, findings: [finding('10.9.7.1', 443, leafA)] }),
      batch(sweep.id, { addressesProbed: 2, findings: [finding('10.9.7.2', 443, leafB), { ...finding('10.9.7.2', 443, leafB), port: 0 }] }),
      batch(sweep.id, { addressesProbed: 3, findings: [finding('10.9.7.3', 443, leafB)] }),
    ]);
    expect(outcomes.reports.map((o) => o.status)).toEqual(['accepted', 'rejected', 'accepted']);
    expect(outcomes.reports[1]).toMatchObject({ code: 400, error: 'findings.1.port must be an integer from 1 to 65535' });
    const kept = await inbox({ networkId: network.id });
    expect(kept.totalCount).toBe(2);
    expect((await getSweep(sweep.id)).addressesProbed).toBe(3);
  });

  it('answer 404 and 409 for sweeps that cannot be requested, and need discovery:edit', async () => {
    await t.http.post(`/api/v1/discovery/networks/${randomUUID()}/sweeps`).set(bearer(admin)).expect(404);
    await t.http.get(`/api/v1/discovery/networks/${randomUUID()}/sweeps`).set(bearer(admin)).expect(404);
    await t.http.get(`/api/v1/discovery/sweeps/${randomUUID()}`).set(bearer(admin)).expect(404);
    const viewer = await createUser(t, 'viewer');
    const network = await createNetwork(['10.9.5.1']);
    await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(viewer.token)).expect(403);
    await t.http.get('/api/v1/discovery/inbox').set(bearer(viewer.token)).expect(403);
    const operator = await createUser(t, 'operator');
    await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(operator.token)).expect(202);
    for (const query of ['status=open', 'networkId=nope', 'limit=0', 'limit=501', 'offset=-1', 'extra=1']) {
      await t.http.get(`/api/v1/discovery/inbox?${query}`).set(bearer(admin)).expect(400);
    }
  });

  it('make a claim or a report racing a network delete wait for it and answer 404, never deadlock', async () => {
    const deleting = new Client({ connectionString: databaseUrl(t.databaseName) });
    await deleting.connect();
    const waitingForLock = async () => {
      for (let tries = 0; tries < 200; tries += 1) {
        const [{ waiting }] = await t.app
          .get(DataSource)
          .query<{ waiting: number }[]>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
        if (waiting > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the request never waited for the network lock');
    };
    try {
      for (const step of ['claim', 'report'] as const) {
        const network = await createNetwork(['10.9.6.1']);
        const sweep = await requestSweep(network.id);
        if (step === 'report') await start(scanner.token, sweep.id).expect(200);
        // A network delete begins: it holds the network's row, and its cascade will want the sweep's.
        await deleting.query('BEGIN');
        await deleting.query('SELECT id FROM discovery_networks WHERE id = $1 FOR UPDATE', [network.id]);
        const racing =
          step === 'claim'
            ? start(scanner.token, sweep.id).then((response) => response.status)
            : t.http
                .post('/api/v1/scanner/sweep-reports')
                .set(bearer(scanner.token))
                .send({ reports: [batch(sweep.id, { addressesProbed: 1 })] })
                .then((response) => (response.body as { reports: { code?: number }[] }).reports[0].code);
        await waitingForLock();
        // Locking the sweep before the network would deadlock here (and PostgreSQL abort one side).
        await deleting.query('DELETE FROM discovery_networks WHERE id = $1', [network.id]);
        await deleting.query('COMMIT');
        expect(await racing).toBe(404);
      }
    } finally {
      await deleting.end();
    }
  });

  it('fail a running sweep whose agent goes quiet, and the sweeps of a deleted scanner; regenerating the token keeps them', async () => {
    const sweeps = t.app.get(SweepsService);
    const quiet = await createNetwork(['10.9.6.0/31']);
    const sweep = await requestSweep(quiet.id);
    await start(scanner.token, sweep.id).expect(200);
    t.clock.advance(SWEEP_QUIET_LIMIT_MS - MINUTE);
    await sweeps.failAbandonedSweeps();
    expect((await getSweep(sweep.id)).status).toBe('running');
    await report(scanner.token, [batch(sweep.id, { addressesProbed: 1 })]); // a sign of life
    t.clock.advance(SWEEP_QUIET_LIMIT_MS - MINUTE);
    await sweeps.failAbandonedSweeps();
    expect((await getSweep(sweep.id)).status).toBe('running');
    t.clock.advance(2 * MINUTE);
    await sweeps.failAbandonedSweeps();
    expect(await getSweep(sweep.id)).toEqual(
      expect.objectContaining({ status: 'failed', error: expect.stringContaining('stopped reporting'), finishedAt: expect.any(String) }),
    );
    expect((await report(scanner.token, [batch(sweep.id, { final: true })])).reports[0].code).toBe(409);
    // A failed sweep does not block the next one.
    await requestSweep(quiet.id);

    const doomed = await createScanner(t);
    const network = await createNetwork(['10.9.7.0/31'], [443], doomed.id);
    const queued = await requestSweep(network.id);
    await t.http.post(`/api/v1/scanners/${doomed.id}/regenerate-token`).set(bearer(admin)).expect(200);
    expect((await getSweep(queued.id)).status).toBe('queued');
    expect(
      ((await t.http.get(`/api/v1/discovery/networks/${network.id}`).set(bearer(admin))).body as { scannerId: string }).scannerId,
    ).toBe(doomed.id);
    await t.http.delete(`/api/v1/scanners/${doomed.id}`).set(bearer(admin)).expect(204);
    await sweeps.failAbandonedSweeps();
    expect(await getSweep(queued.id)).toEqual(
      expect.objectContaining({ status: 'failed', scannerId: null, error: expect.stringContaining('deleted') }),
    );
    // Unassigned: not swept on request or by its cron until a scanner is assigned.
    await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(409);
    await t.http.patch(`/api/v1/discovery/networks/${network.id}`).set(bearer(admin)).send({ scannerId: scanner.id }).expect(200);
    expect((await requestSweep(network.id)).scannerId).toBe(scanner.id);
  });

  it('are queued by the network cron once per slot, only for enabled networks with a scanner', async () => {
    const sweeps = t.app.get(SweepsService);
    const dataSource = t.app.get(DataSource);
    // Settle whatever earlier tests left due, so only this test's networks count below.
    await dataSource.query(`UPDATE discovery_networks SET enabled = false`);
    const hourly = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'hourly', ranges: ['10.9.8.1'], scannerId: scanner.id, scanCronExpression: '0 * * * *' })
        .expect(201)
    ).body as { id: string };
    await t.http
      .post('/api/v1/discovery/networks')
      .set(bearer(admin))
      .send({ name: 'hourly-off', ranges: ['10.9.8.2'], scannerId: scanner.id, scanCronExpression: '0 * * * *', enabled: false })
      .expect(201);
    expect(await sweeps.queueDueSweeps()).toBe(0);
    t.clock.advance(61 * MINUTE);
    expect(await Promise.all([sweeps.queueDueSweeps(), sweeps.queueDueSweeps()])).toEqual(expect.arrayContaining([1, 0]));
    const listed = (await t.http.get(`/api/v1/discovery/networks/${hourly.id}/sweeps`).set(bearer(admin)).expect(200)).body as Sweep[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toEqual(expect.objectContaining({ status: 'queued', scannerId: scanner.id }));
    // The next slot while one is still queued queues nothing more.
    t.clock.advance(60 * MINUTE);
    expect(await sweeps.queueDueSweeps()).toBe(0);
  });

  describe('the inbox', () => {
    it('marks a service tracked when a host endpoint names its address or last reached it', async () => {
      const network = await createNetwork(['10.9.10.0/29'], [443]);
      const named = (
        await t.http
          .post('/api/v1/endpoints')
          .set(bearer(admin))
          .send({ name: 'named', dnsName: 'named.sweep.test', ipAddress: '10.9.10.1', port: 443 })
          .expect(201)
      ).body as { id: string };
      const resolved = (
        await t.http
          .post('/api/v1/endpoints')
          .set(bearer(admin))
          .send({ name: 'resolved', dnsName: 'resolved.sweep.test', port: 443, scannerId: scanner.id })
          .expect(201)
      ).body as { id: string };
      await t.http
        .post('/api/v1/scanner/results')
        .set(bearer(scanner.token))
        .send({ results: [hostScanResult(resolved.id, [leafB], t.clock.now(), { resolvedIp: '10.9.10.2' })] })
        .expect(200);
      await sweepWith(network.id, [finding('10.9.10.1', 443, leafA), finding('10.9.10.2', 443, leafB), finding('10.9.10.3', 443, leafB)]);
      expect(await entryAt(network.id, '10.9.10.1', 443)).toEqual(expect.objectContaining({ status: 'tracked', endpointId: named.id }));
      expect(await entryAt(network.id, '10.9.10.2', 443)).toEqual(expect.objectContaining({ status: 'tracked', endpointId: resolved.id }));
      expect(await entryAt(network.id, '10.9.10.3', 443)).toEqual(expect.objectContaining({ status: 'new', endpointId: null }));
      expect((await inbox({ networkId: network.id, status: 'tracked' })).totalCount).toBe(2);
      // A tracked service is not promoted a second time.
      const tracked = await entryAt(network.id, '10.9.10.1', 443);
      await t.http.post(`/api/v1/discovery/inbox/${tracked.id}/promote`).set(bearer(admin)).send({}).expect(409);
      // Deleting the endpoint makes it new again.
      await t.http.delete(`/api/v1/endpoints/${named.id}`).set(bearer(admin)).expect(204);
      expect((await entryAt(network.id, '10.9.10.1', 443)).status).toBe('new');
    });

    it('promotes through POST /endpoints: defaults, overrides, its validation, and once only', async () => {
      const network = await createNetwork(['10.9.11.0/29'], [443, 8443]);
      await sweepWith(network.id, [
        finding('10.9.11.1', 443, leafA, 'rev.sweep.test'),
        finding('10.9.11.2', 8443, leafA),
        finding('10.9.11.3', 443, leafB),
      ]);
      const first = await entryAt(network.id, '10.9.11.1', 443);
      const promoted = await t.http.post(`/api/v1/discovery/inbox/${first.id}/promote`).set(bearer(admin)).send({}).expect(201);
      expect(promoted.body).toEqual(
        expect.objectContaining({
          type: 'host',
          name: 'rev.sweep.test',
          dnsName: 'rev.sweep.test',
          ipAddress: '10.9.11.1',
          port: 443,
          scannerId: expect.any(String),
        }),
      );
      const endpointId = (promoted.body as { id: string }).id;
      await t.http.get(`/api/v1/endpoints/${endpointId}`).set(bearer(admin)).expect(200);
      expect(await entryAt(network.id, '10.9.11.1', 443)).toEqual(expect.objectContaining({ status: 'promoted', endpointId }));
      const again = await t.http.post(`/api/v1/discovery/inbox/${first.id}/promote`).set(bearer(admin)).send({}).expect(409);
      expect(again.text).toContain('already promoted');
      await t.http.post(`/api/v1/discovery/inbox/${first.id}/dismiss`).set(bearer(admin)).expect(409);

      // Defaults without a reverse name: the first SAN that is a host name; the port joins the name.
      const second = await entryAt(network.id, '10.9.11.2', 8443);
      await t.http.post(`/api/v1/discovery/inbox/${second.id}/promote`).set(bearer(admin)).send({ dnsName: 'bad name!' }).expect(400);
      await t.http.post(`/api/v1/discovery/inbox/${second.id}/promote`).set(bearer(admin)).send({ scannerId: randomUUID() }).expect(400);
      await t.http
        .post(`/api/v1/discovery/inbox/${second.id}/promote`)
        .set(bearer(admin))
        .send({ tags: ['bad\u0000tag'] })
        .expect(400);
      await t.http.post(`/api/v1/discovery/inbox/${second.id}/promote`).set(bearer(admin)).send({ extra: true }).expect(400);
      expect((await entryAt(network.id, '10.9.11.2', 8443)).status).toBe('new');
      const overridden = await t.http
        .post(`/api/v1/discovery/inbox/${second.id}/promote`)
        .set(bearer(admin))
        .send({ name: 'Payments', tags: ['env:prod'], scannerId: other.id })
        .expect(201);
      expect(overridden.body).toEqual(
        expect.objectContaining({ name: 'Payments', dnsName: 'a.sweep.test', port: 8443, tags: ['env:prod'], scannerId: other.id }),
      );

      // An endpoint elsewhere under the same name does not stand in the way: the identity includes the address.
      const third = await entryAt(network.id, '10.9.11.3', 443);
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(admin))
        .send({ name: 'taken', dnsName: 'b.sweep.test', ipAddress: '10.9.11.30', port: 443 })
        .expect(201);
      await t.http.post(`/api/v1/discovery/inbox/${third.id}/promote`).set(bearer(admin)).send({ dnsName: 'b.sweep.test' }).expect(201);
      await t.http.post(`/api/v1/discovery/inbox/${randomUUID()}/promote`).set(bearer(admin)).send({}).expect(404);
    });

    it('keeps a dismissed entry dismissed through re-sweeps until another certificate is seen there', async () => {
      const network = await createNetwork(['10.9.12.0/30'], [443]);
      await sweepWith(network.id, [finding('10.9.12.1', 443, leafA)]);
      const entry = await entryAt(network.id, '10.9.12.1', 443);
      const dismissed = await t.http.post(`/api/v1/discovery/inbox/${entry.id}/dismiss`).set(bearer(admin)).expect(200);
      expect(dismissed.body).toEqual(expect.objectContaining({ id: entry.id, status: 'dismissed' }));
      await sweepWith(network.id, [finding('10.9.12.1', 443, leafA)]);
      expect(await entryAt(network.id, '10.9.12.1', 443)).toEqual(
        expect.objectContaining({ status: 'dismissed', firstSeenAt: entry.firstSeenAt }),
      );
      await sweepWith(network.id, [finding('10.9.12.1', 443, leafB)]);
      expect(await entryAt(network.id, '10.9.12.1', 443)).toEqual(
        expect.objectContaining({ id: entry.id, status: 'new', fingerprint: fingerprintOf(leafB) }),
      );
      expect((await inbox({ networkId: network.id })).totalCount).toBe(1);
    });

    it('acts in bulk, answering per id', async () => {
      const network = await createNetwork(['10.9.13.0/29'], [443]);
      await sweepWith(network.id, [finding('10.9.13.1', 443, leafA), finding('10.9.13.2', 443, leafB), finding('10.9.13.3', 443, leafB)]);
      const [a, b, c] = await Promise.all(['10.9.13.1', '10.9.13.2', '10.9.13.3'].map((address) => entryAt(network.id, address, 443)));
      const unknown = randomUUID();
      const promoted = (
        await t.http
          .post('/api/v1/discovery/inbox/bulk')
          .set(bearer(admin))
          .send({ action: 'promote', ids: [a.id, unknown, b.id] })
          .expect(200)
      ).body as {
        results: { index: number; id: string; ok: boolean; status: number; endpoint?: { ipAddress: string } }[];
        succeeded: number;
        failed: number;
      };
      expect(promoted.results.map((r) => [r.index, r.id, r.ok, r.status])).toEqual([
        [0, a.id, true, 201],
        [1, unknown, false, 404],
        [2, b.id, true, 201],
      ]);
      expect(promoted.results[2].endpoint?.ipAddress).toBe('10.9.13.2');
      expect([promoted.succeeded, promoted.failed]).toEqual([2, 1]);
      const dismissed = (
        await t.http
          .post('/api/v1/discovery/inbox/bulk')
          .set(bearer(admin))
          .send({ action: 'dismiss', ids: [a.id, c.id] })
          .expect(200)
      ).body as { results: { ok: boolean; status: number; entry?: { status: string } }[] };
      expect(dismissed.results.map((r) => [r.ok, r.status, r.entry?.status])).toEqual([
        [false, 409, undefined],
        [true, 200, 'dismissed'],
      ]);
      for (const body of [
        { action: 'promote', ids: [] },
        { action: 'archive', ids: [a.id] },
        { action: 'dismiss', ids: ['x'] },
        { action: 'dismiss' },
      ]) {
        await t.http.post('/api/v1/discovery/inbox/bulk').set(bearer(admin)).send(body).expect(400);
      }
    });

    it('disappears with its network', async () => {
      const network = await createNetwork(['10.9.14.0/30'], [443]);
      const sweep = await sweepWith(network.id, [finding('10.9.14.1', 443, leafA)]);
      await t.http.delete(`/api/v1/discovery/networks/${network.id}`).set(bearer(admin)).expect(204);
      expect((await inbox({ networkId: network.id })).totalCount).toBe(0);
      await t.http.get(`/api/v1/discovery/sweeps/${sweep.id}`).set(bearer(admin)).expect(404);
      // The certificate stays in the global store.
      await t.http
        .get(`/api/v1/certificates/${fingerprintOf(leafA)}`)
        .set(bearer(admin))
        .expect(200);
    });
  });
});
