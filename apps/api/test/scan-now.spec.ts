import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkItem } from '@certkeeper/domain/protocol';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DataSource } from 'typeorm';
import { type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { bearer, createScanner, createTestDatabase, createUser, type TestApp, createSignedInTestApp } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';
import { SwappableTlsServer } from './support/tls-servers';
import { AGENT, RUN_OUTBOUND_DENY } from './support/agent-process';

/**
 * Scan now (docs/decisions/0012-scan-now.md): the agent's long-poll on its work
 * route, `POST /endpoints/{id}/scan`, and the NOTIFY that carries both across API replicas. Real
 * PostgreSQL, the real agent daemon from dist/, real TLS servers on loopback.
 *
 * The deadlines below (15 s) are correctness bounds far under the old one-minute poll and the
 * 30 s the API may hold a poll, not performance targets.
 */
const OBSERVED_WITHIN_MS = 15_000;
const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface Poll {
  status: number;
  items: WorkItem[];
  elapsedMs: number;
}

/** One long-poll as the agent makes it, with a deadline of its own beyond the wait. */
async function pollWork(baseUrl: string, token: string, waitSeconds: number): Promise<Poll> {
  const started = Date.now();
  const response = await fetch(`${baseUrl}/api/v1/scanner/work?neverScanned=true&wait=${waitSeconds}`, {
    headers: bearer(token),
    signal: AbortSignal.timeout(waitSeconds * 1000 + 20_000),
  });
  const body = (await response.json()) as { items?: WorkItem[] };
  return { status: response.status, items: body.items ?? [], elapsedMs: Date.now() - started };
}

/** A failed host probe as the agent reports it: enough to mark the endpoint scanned. */
function failedHostResult(endpointId: string) {
  return {
    resultId: randomUUID(),
    endpointId,
    type: 'host',
    scannedAt: new Date().toISOString(),
    success: false,
    error: 'connection refused',
    resolvedIp: null,
    tlsVersion: null,
    cipherSuite: null,
    authorized: null,
    authorizationError: null,
    chain: [],
    tlsProfile: null,
  };
}

async function postResult(baseUrl: string, token: string, endpointId: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/scanner/results`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ results: [failedHostResult(endpointId)] }),
    signal: AbortSignal.timeout(20_000),
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(['accepted']);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('scan now', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(async () => {
    await t.close();
  });

  const createEndpoint = async (body: Record<string, unknown>) =>
    ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;

  describe('the long-poll on GET /scanner/work', () => {
    let scanner: { id: string; token: string };
    beforeAll(async () => {
      scanner = await createScanner(t);
    });

    it('answers at once with due work, holds until work arrives, and answers empty at the deadline', async () => {
      const first = await createEndpoint({ name: 'due', dnsName: 'due.example.test', port: 443, scannerId: scanner.id });
      const immediate = await pollWork(t.baseUrl, scanner.token, 30);
      expect(immediate.status).toBe(200);
      expect(immediate.items.map((item) => item.endpointId)).toEqual([first]);
      expect(immediate.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);

      await postResult(t.baseUrl, scanner.token, first);
      const empty = await pollWork(t.baseUrl, scanner.token, 1);
      expect(empty).toMatchObject({ status: 200, items: [] });
      // Held until its deadline: not answered at once.
      expect(empty.elapsedMs).toBeGreaterThanOrEqual(900);

      const held = pollWork(t.baseUrl, scanner.token, 30);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const second = await createEndpoint({ name: 'arrives', dnsName: 'arrives.example.test', port: 443, scannerId: scanner.id });
      const answered = await held;
      expect(answered.items.map((item) => item.endpointId)).toEqual([second]);
      expect(answered.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);
      await postResult(t.baseUrl, scanner.token, second);
    });

    it('is woken by a scan request, which stays due until a result is ingested after it', async () => {
      const id = await createEndpoint({ name: 'requested', dnsName: 'requested.example.test', port: 443, scannerId: scanner.id });
      await postResult(t.baseUrl, scanner.token, id);
      expect((await pollWork(t.baseUrl, scanner.token, 0)).items).toEqual([]);

      const held = pollWork(t.baseUrl, scanner.token, 30);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await t.http.post(`/api/v1/endpoints/${id}/scan`).set(bearer(admin)).expect(202);
      const answered = await held;
      expect(answered.items.map((item) => item.endpointId)).toEqual([id]);
      expect(answered.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);

      // Asking again changes nothing; the request is still due until a result arrives.
      await t.http.post(`/api/v1/endpoints/${id}/scan`).set(bearer(admin)).expect(202);
      expect((await pollWork(t.baseUrl, scanner.token, 0)).items.map((item) => item.endpointId)).toEqual([id]);
      await postResult(t.baseUrl, scanner.token, id);
      expect((await pollWork(t.baseUrl, scanner.token, 0)).items).toEqual([]);
    });

    it('listens again after its listening connection is cut, and polls are still woken', async () => {
      const database = t.app.get(DataSource);
      const listeners = async () =>
        (
          await database.query<{ pid: number }[]>(
            `SELECT pid FROM pg_stat_activity WHERE application_name = 'certkeeper-api-listen' AND datname = current_database()`,
          )
        ).map((row) => row.pid);
      const [before] = await listeners();
      expect(before).toEqual(expect.any(Number));
      await database.query('SELECT pg_terminate_backend($1)', [before]);
      const after = await eventually(listeners, (pids) => pids.length === 1 && pids[0] !== before, OBSERVED_WITHIN_MS);
      expect(after).toEqual([expect.any(Number)]);
      expect(after[0]).not.toBe(before);

      const held = pollWork(t.baseUrl, scanner.token, 30);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const id = await createEndpoint({ name: 'after-cut', dnsName: 'after-cut.example.test', port: 443, scannerId: scanner.id });
      const answered = await held;
      expect(answered.items.map((item) => item.endpointId)).toEqual([id]);
      expect(answered.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);
      await postResult(t.baseUrl, scanner.token, id);
    });

    it('refuses a wait beyond 30 seconds and a wait that is not a number', async () => {
      await t.http.get('/api/v1/scanner/work?neverScanned=true&wait=31').set(bearer(scanner.token)).expect(400);
      await t.http.get('/api/v1/scanner/work?neverScanned=true&wait=soon').set(bearer(scanner.token)).expect(400);
    });
  });

  describe('POST /endpoints/{id}/scan', () => {
    it('is 401 anonymous, 403 for a viewer, 404 unknown, 409 for manual, disabled and scan-exempt endpoints', async () => {
      const host = await createEndpoint({ name: 'refusals', dnsName: 'refusals.example.test', port: 443 });
      const manual = await createEndpoint({ name: 'paper', type: 'manual' });
      const disabled = await createEndpoint({ name: 'paused', dnsName: 'paused.example.test', enabled: false });
      const exempt = await createEndpoint({ name: 'exempt', dnsName: 'exempt.example.test', scanExempt: true });
      const viewer = await createUser(t, 'viewer');

      await t.http.post(`/api/v1/endpoints/${host}/scan`).expect(401);
      await t.http.post(`/api/v1/endpoints/${host}/scan`).set(bearer(viewer.token)).expect(403);
      await t.http.post(`/api/v1/endpoints/${randomUUID()}/scan`).set(bearer(admin)).expect(404);
      for (const id of [manual, disabled, exempt]) await t.http.post(`/api/v1/endpoints/${id}/scan`).set(bearer(admin)).expect(409);
      await t.http.post(`/api/v1/endpoints/${host}/scan`).set(bearer(admin)).expect(202);
    });
  });

  describe('with the real agent daemon, default settings', () => {
    const tls = new SwappableTlsServer();
    let agent: ChildProcess;
    let agentOutput = '';
    let a: MintedCertificate;
    let b: MintedCertificate;
    let scanner: { id: string; token: string };

    beforeAll(async () => {
      if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: build it first (node tools/build.js all).`);
      [a, b] = await Promise.all([
        mintCertificate({ subject: 'CN=now.example.test', sans: ['now.example.test'] }),
        mintCertificate({ subject: 'CN=now.example.test', sans: ['now.example.test'] }),
      ]);
      await tls.serve('now.example.test', a);
      await tls.listen();
      // Its own scanner, with a schedule that does not fire during the test: only the long-poll can scan.
      scanner = await createScanner(t);
      await t.http.patch(`/api/v1/scanners/${scanner.id}`).set(bearer(admin)).send({ scanCronExpression: '0 0 1 1 *' }).expect(200);
      agent = spawn(process.execPath, [AGENT], {
        env: { PATH: process.env.PATH ?? '', SCANNER_API_URL: t.baseUrl, SCANNER_TOKEN: scanner.token, ...RUN_OUTBOUND_DENY },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      agent.stdout?.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
      agent.stderr?.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
      await eventually(
        () => Promise.resolve(agentOutput),
        (output) => output.includes('scanner agent started'),
        OBSERVED_WITHIN_MS,
      );
      // Let its first long-poll (nothing is due yet) be held before anything is created.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    });
    afterAll(async () => {
      if (agent && agent.exitCode === null) {
        await new Promise((resolve) => {
          agent.once('exit', resolve);
          agent.kill('SIGTERM');
        });
      }
      await tls.close();
    });

    const current = async (id: string) =>
      (
        (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as {
          currentCertificates: { fingerprint: string }[];
        }
      ).currentCertificates.map((c) => c.fingerprint);

    it('observes a new endpoint within seconds, and a changed certificate within seconds of POST /scan', async () => {
      const id = await createEndpoint({
        name: 'now',
        dnsName: 'now.example.test',
        ipAddress: '127.0.0.1',
        port: tls.port,
        scannerId: scanner.id,
      });
      const created = Date.now();
      const seen = await eventually(
        () => current(id),
        (fingerprints) => fingerprints.length > 0,
        OBSERVED_WITHIN_MS,
      );
      expect({ seen, output: seen.length > 0 ? '' : agentOutput }).toEqual({ seen: [sha256(a)], output: '' });
      expect(Date.now() - created).toBeLessThan(OBSERVED_WITHIN_MS);

      await tls.serve('now.example.test', b);
      // Give the agent time to post and go back to its held poll: the request must wake it.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await t.http.post(`/api/v1/endpoints/${id}/scan`).set(bearer(admin)).expect(202);
      const requested = Date.now();
      const rotated = await eventually(
        () => current(id),
        (fingerprints) => fingerprints.includes(sha256(b)),
        OBSERVED_WITHIN_MS,
      );
      expect({ rotated, output: rotated.includes(sha256(b)) ? '' : agentOutput }).toEqual({ rotated: [sha256(b)], output: '' });
      expect(Date.now() - requested).toBeLessThan(OBSERVED_WITHIN_MS);
    });

    it('stops promptly on SIGTERM while its poll is held', async () => {
      const stopped = Date.now();
      const code = await new Promise<number | null>((resolve) => {
        agent.once('exit', (exitCode) => resolve(exitCode));
        agent.kill('SIGTERM');
      });
      expect(code).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(OBSERVED_WITHIN_MS);
    });
  });
});

/** Two API processes on one database: a wake on one reaches a poll held on the other. */
describe('scan now on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let replicas: RunningService[] = [];
  const ADMIN = { email: 'admin@scan-now.test', password: 'scan-now-password-1' };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-scan-now-'));
    databaseName = await createTestDatabase();
    const env = {
      ...sharedServiceEnvironment(databaseUrl(databaseName), ADMIN),
    };
    // A runs the embedded agent (the default scanner), with its default settings.
    const started = await Promise.allSettled(
      ['a', 'b'].map((name) =>
        startService({ ...env, ...RUN_OUTBOUND_DENY, DATA_DIR: join(directory, name), EMBEDDED_SCANNER: String(name === 'a') }),
      ),
    );
    replicas = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    for (const start of started) if (start.status === 'rejected') throw start.reason;
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => stopService(replica)));
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  });

  it('an endpoint created on A and a scan requested on B wake the polls held on the other replica', async () => {
    const [a, b] = replicas;
    const call = async (replica: RunningService, method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${replica.baseUrl}/api/v1${path}`, {
        method,
        headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
    };
    const signIn = await fetch(`${a.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
      signal: AbortSignal.timeout(20_000),
    });
    const admin = ((await signIn.json()) as { token: string }).token;
    const created = await call(a, 'POST', '/scanners', admin, { name: 'replicated' });
    expect(created.status).toBe(201);
    const scanner = created.body as { id: string; token: string };

    const heldOnB = pollWork(b.baseUrl, scanner.token, 30);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const endpoint = await call(a, 'POST', '/endpoints', admin, { name: 'x', dnsName: 'x.example.test', scannerId: scanner.id });
    expect(endpoint.status).toBe(201);
    const id = endpoint.body.id as string;
    const fromB = await heldOnB;
    expect(fromB.items.map((item) => item.endpointId)).toEqual([id]);
    expect(fromB.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);

    await postResult(a.baseUrl, scanner.token, id);
    const heldOnA = pollWork(a.baseUrl, scanner.token, 30);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await call(b, 'POST', `/endpoints/${id}/scan`, admin)).status).toBe(202);
    const fromA = await heldOnA;
    expect(fromA.items.map((item) => item.endpointId)).toEqual([id]);
    expect(fromA.elapsedMs).toBeLessThan(OBSERVED_WITHIN_MS);
  });

  it('the embedded agent on A observes within seconds an endpoint created on B for the default scanner', async () => {
    const [a, b] = replicas;
    const tls = new SwappableTlsServer();
    const certificate = await mintCertificate({ subject: 'CN=embedded.example.test', sans: ['embedded.example.test'] });
    await tls.serve('embedded.example.test', certificate);
    await tls.listen();
    try {
      const signIn = await fetch(`${b.baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
        signal: AbortSignal.timeout(20_000),
      });
      const admin = ((await signIn.json()) as { token: string }).token;
      const request = (path: string, init: RequestInit = {}) =>
        fetch(`${b.baseUrl}/api/v1${path}`, {
          ...init,
          headers: { ...bearer(admin), 'content-type': 'application/json' },
          signal: AbortSignal.timeout(20_000),
        });
      const created = await request('/endpoints', {
        method: 'POST',
        body: JSON.stringify({ name: 'embedded', dnsName: 'embedded.example.test', ipAddress: '127.0.0.1', port: tls.port }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const fingerprints = await eventually(
        async () =>
          (
            (await (await request(`/endpoints/${id}`)).json()) as { currentCertificates: { fingerprint: string }[] }
          ).currentCertificates.map((c) => c.fingerprint),
        (seen) => seen.length > 0,
        OBSERVED_WITHIN_MS,
      );
      expect({ fingerprints, output: fingerprints.length > 0 ? '' : a.output() }).toEqual({
        fingerprints: [sha256(certificate)],
        output: '',
      });
    } finally {
      await tls.close();
    }
  });

  it('answers a held poll when the replica shuts down instead of holding its shutdown', async () => {
    const b = replicas[1];
    const signIn = await fetch(`${b.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
      signal: AbortSignal.timeout(20_000),
    });
    const admin = ((await signIn.json()) as { token: string }).token;
    const created = await fetch(`${b.baseUrl}/api/v1/scanners`, {
      method: 'POST',
      headers: { ...bearer(admin), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'idle' }),
      signal: AbortSignal.timeout(20_000),
    });
    const { token } = (await created.json()) as { token: string };
    const held = pollWork(b.baseUrl, token, 30);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stopping = Date.now();
    await stopService(b);
    const answered = await held;
    expect(answered).toMatchObject({ status: 200, items: [] });
    expect(Date.now() - stopping).toBeLessThan(OBSERVED_WITHIN_MS);
  });
});
