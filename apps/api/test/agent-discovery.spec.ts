import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:tls';
import { mintCertificate, type MintedCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { freePort } from '../src/common/net/free-port';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { startTarpit } from './support/tls-servers';
import { AGENT, RUN_OUTBOUND_DENY, runAgentCycle } from './support/agent-process';

const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface Sweep {
  id: string;
  status: string;
  addressesTotal: number;
  addressesProbed: number;
  servicesFound: number;
  error: string | null;
}
interface Entry {
  id: string;
  address: string;
  port: number;
  hostnames: string[];
  fingerprint: string | null;
  status: string;
  endpointId: string | null;
}

/** Polls until `read` returns something `done` accepts, or fails after `ms`. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The real agent, as a daemon, sweeping loopback addresses (Linux answers on all of 127.0.0.0/8)
 * where test TLS servers listen, beside closed ports and a tarpit.
 */
describe('the real agent sweeping a network', () => {
  let t: TestApp;
  let admin: string;
  let agent: ChildProcess;
  let agentOutput = '';
  const servers: { close(): Promise<void> }[] = [];
  let a: MintedCertificate;
  let b: MintedCertificate;
  let c: MintedCertificate;
  let d: MintedCertificate;
  const ports = { a: 0, b: 0, c: 0, tarpit: 0, closed: 0 };
  let dismissable: { port: number; close(): Promise<void> };

  /** A TLS server on one loopback address presenting `certificate` with or without SNI. */
  const serve = async (certificate: MintedCertificate, host: string, port = 0) => {
    const server = createServer({ cert: certificate.pem, key: await privateKeyPem(certificate.keys.privateKey) }, (socket) => socket.end());
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
    const handle = {
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
    servers.push(handle);
    return handle;
  };

  beforeAll(async () => {
    if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: \`npm test\` builds it first (npm run build).`);
    t = await createTestApp();
    admin = await login(t);
    const token = (await defaultScannerCredentials(t, admin)).token;
    [a, b, c, d] = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) => mintCertificate({ subject: `CN=${name}.sweep.test`, sans: [`${name}.sweep.test`] })),
    );
    // Each server listens on its own address, so the kernel may hand two of them the same port:
    // the network's port list must hold five distinct ports for the counts below to mean anything.
    const taken = new Set<number>();
    const distinctPort = async <T extends { port: number; close(): Promise<void> }>(open: () => Promise<T>): Promise<T> => {
      for (;;) {
        const handle = await open();
        if (!taken.has(handle.port)) {
          taken.add(handle.port);
          return handle;
        }
        await handle.close();
      }
    };
    ports.a = (await distinctPort(() => serve(a, '127.0.9.1'))).port;
    ports.b = (await distinctPort(() => serve(b, '127.0.9.2'))).port;
    dismissable = await distinctPort(() => serve(c, '127.0.9.4'));
    ports.c = dismissable.port;
    const tarpit = await distinctPort(() => startTarpit('127.0.9.3'));
    servers.push(tarpit);
    ports.tarpit = tarpit.port;
    ports.closed = (await distinctPort(async () => ({ port: await freePort(), close: () => Promise.resolve() }))).port;

    agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH ?? '',
        SCANNER_API_URL: t.baseUrl,
        SCANNER_TOKEN: token,
        SCANNER_CONNECT_TIMEOUT_MS: '1000',
        SCANNER_HANDSHAKE_TIMEOUT_MS: '1000',
        SCANNER_NEW_WORK_POLL_MS: '200',
        ...RUN_OUTBOUND_DENY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
  });
  afterAll(async () => {
    if (agent.exitCode === null) {
      agent.kill('SIGKILL');
      await new Promise((resolve) => agent.once('exit', resolve));
    }
    await Promise.all(servers.map((server) => server.close()));
    await t.close();
  });

  const sweepNow = async (networkId: string) => {
    const queued = (await t.http.post(`/api/v1/discovery/networks/${networkId}/sweeps`).set(bearer(admin)).expect(202)).body as Sweep;
    return eventually(
      async () => (await t.http.get(`/api/v1/discovery/sweeps/${queued.id}`).set(bearer(admin)).expect(200)).body as Sweep,
      (sweep) => sweep.status === 'completed' || sweep.status === 'failed',
    );
  };
  const inbox = async (networkId: string) =>
    ((await t.http.get('/api/v1/discovery/inbox').query({ networkId }).set(bearer(admin)).expect(200)).body as { items: Entry[] }).items;
  const entryAt = async (networkId: string, address: string) => (await inbox(networkId)).find((entry) => entry.address === address);

  it('finds the TLS services with their certificates, counts the rest, and knows what is tracked', async () => {
    const tracking = (
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(admin))
        .send({ name: 'b', dnsName: 'b.sweep.test', ipAddress: '127.0.9.2', port: ports.b })
        .expect(201)
    ).body as { id: string };
    const network = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'loopback', ranges: ['127.0.9.0/29'], ports: [ports.a, ports.b, ports.c, ports.tarpit, ports.closed] })
        .expect(201)
    ).body as { id: string };

    const sweep = await sweepNow(network.id);
    expect({ sweep, output: sweep.servicesFound === 3 ? '' : agentOutput }).toEqual({
      sweep: expect.objectContaining({ status: 'completed', addressesTotal: 8, addressesProbed: 8, servicesFound: 3, error: null }),
      output: '',
    });
    const entries = await inbox(network.id);
    expect(entries.map((entry) => `${entry.address}:${entry.port}`).sort()).toEqual(
      [`127.0.9.1:${ports.a}`, `127.0.9.2:${ports.b}`, `127.0.9.4:${ports.c}`].sort(),
    );
    const found = await entryAt(network.id, '127.0.9.1');
    expect(found).toEqual(expect.objectContaining({ fingerprint: sha256(a), status: 'new', endpointId: null }));
    expect(found!.hostnames).toContain('a.sweep.test');
    expect(await entryAt(network.id, '127.0.9.2')).toEqual(
      expect.objectContaining({ fingerprint: sha256(b), status: 'tracked', endpointId: tracking.id }),
    );
    await t.http
      .get(`/api/v1/certificates/${sha256(a)}`)
      .set(bearer(admin))
      .expect(200);

    // Promote: a working endpoint that the agent's next look at new endpoints observes.
    const promoted = (await t.http.post(`/api/v1/discovery/inbox/${found!.id}/promote`).set(bearer(admin)).send({}).expect(201)).body as {
      id: string;
      dnsName: string;
      ipAddress: string;
      port: number;
    };
    expect(promoted).toEqual(expect.objectContaining({ dnsName: 'a.sweep.test', ipAddress: '127.0.9.1', port: ports.a }));
    const observed = await eventually(
      async () =>
        (await t.http.get(`/api/v1/endpoints/${promoted.id}`).set(bearer(admin)).expect(200)).body as {
          currentCertificates: { fingerprint: string }[];
        },
      (endpoint) => endpoint.currentCertificates.length > 0,
    );
    expect(observed.currentCertificates.map((certificate) => certificate.fingerprint)).toEqual([sha256(a)]);
    expect(await entryAt(network.id, '127.0.9.1')).toEqual(expect.objectContaining({ status: 'promoted', endpointId: promoted.id }));

    // Dismiss survives a re-sweep that sees the same certificate, and yields to another one.
    const other = (await entryAt(network.id, '127.0.9.4'))!;
    await t.http.post(`/api/v1/discovery/inbox/${other.id}/dismiss`).set(bearer(admin)).expect(200);
    expect((await sweepNow(network.id)).status).toBe('completed');
    expect(await entryAt(network.id, '127.0.9.4')).toEqual(expect.objectContaining({ status: 'dismissed', fingerprint: sha256(c) }));
    await dismissable.close();
    await serve(d, '127.0.9.4', ports.c);
    expect((await sweepNow(network.id)).status).toBe('completed');
    expect(await entryAt(network.id, '127.0.9.4')).toEqual(
      expect.objectContaining({ id: other.id, status: 'new', fingerprint: sha256(d) }),
    );
  }, 120_000);

  it('runs the sweeps queued for its scanner after its cycle with --once, so an agent run from cron sweeps too', async () => {
    // A scanner of its own: the daemon above (the default scanner's) never sees this network.
    const scanner = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'cron' }).expect(201)).body as {
      id: string;
      token: string;
    };
    const network = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'from cron', ranges: ['127.0.9.1'], ports: [ports.a, ports.closed], scannerId: scanner.id })
        .expect(201)
    ).body as { id: string };
    const queued = (await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(202)).body as Sweep;

    const run = await runAgentCycle(t.baseUrl, scanner.token, {
      SCANNER_CONNECT_TIMEOUT_MS: '1000',
      SCANNER_HANDSHAKE_TIMEOUT_MS: '1000',
      ...RUN_OUTBOUND_DENY,
    });
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
    // Finished when the process exited, not later.
    expect((await t.http.get(`/api/v1/discovery/sweeps/${queued.id}`).set(bearer(admin)).expect(200)).body).toEqual(
      expect.objectContaining({ status: 'completed', addressesTotal: 1, addressesProbed: 1, servicesFound: 1, error: null }),
    );
    expect(await entryAt(network.id, '127.0.9.1')).toEqual(expect.objectContaining({ port: ports.a, fingerprint: sha256(a) }));
  }, 60_000);

  it("stops a --once run's sweep on SIGTERM (a cron job's time limit) with a final report, and exits cleanly", async () => {
    const scanner = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'cron with a limit' }).expect(201)).body as {
      id: string;
      token: string;
    };
    const tarpits = await Promise.all(Array.from({ length: 20 }, () => startTarpit('127.0.9.6')));
    servers.push(...tarpits);
    const network = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'tarpits from cron', ranges: ['127.0.9.6'], ports: tarpits.map((tarpit) => tarpit.port), scannerId: scanner.id })
        .expect(201)
    ).body as { id: string };
    const queued = (await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(202)).body as Sweep;
    const read = async () => (await t.http.get(`/api/v1/discovery/sweeps/${queued.id}`).set(bearer(admin)).expect(200)).body as Sweep;

    let output = '';
    const once = spawn(process.execPath, [AGENT, '--once'], {
      env: { PATH: process.env.PATH ?? '', SCANNER_API_URL: t.baseUrl, SCANNER_TOKEN: scanner.token, ...RUN_OUTBOUND_DENY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    once.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    once.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => once.once('exit', (exitCode) => resolve(exitCode)));
    await eventually(read, (sweep) => sweep.status === 'running');

    once.kill('SIGTERM');
    const code = await exited;
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    expect(await read()).toEqual(expect.objectContaining({ status: 'failed', error: expect.stringContaining('stopped') }));
  }, 30_000);

  it('finishes in-flight probes on SIGTERM, reports how far it got, and exits cleanly', async () => {
    // Twenty silent ports on one address: at the agent's concurrency the sweep runs for seconds.
    const tarpits = await Promise.all(Array.from({ length: 20 }, () => startTarpit('127.0.9.5')));
    servers.push(...tarpits);
    const network = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'tarpits', ranges: ['127.0.9.5'], ports: tarpits.map((tarpit) => tarpit.port) })
        .expect(201)
    ).body as { id: string };
    const queued = (await t.http.post(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(202)).body as Sweep;
    const read = async () => (await t.http.get(`/api/v1/discovery/sweeps/${queued.id}`).set(bearer(admin)).expect(200)).body as Sweep;
    await eventually(read, (sweep) => sweep.status === 'running');

    agent.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => agent.once('exit', (exitCode) => resolve(exitCode)));
    expect({ code, output: code === 0 ? '' : agentOutput }).toEqual({ code: 0, output: '' });
    expect(await read()).toEqual(expect.objectContaining({ status: 'failed', error: expect.stringContaining('stopped') }));
  }, 30_000);
});
