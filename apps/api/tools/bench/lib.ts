import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { freePort } from '../../src/common/net/free-port';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';

// The repository root, from the compiled file in dist/apps/api/tools/bench.
export const ROOT = join(__dirname, '../../../../..');

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** Runs `work` against a fresh embedded PostgreSQL in a temporary directory, removed afterwards. */
export async function withBenchDatabase(name: string, work: (database: { url: string }) => Promise<void>): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), `certkeeper-bench-${name}-`));
  await chmod(directory, 0o755);
  const database = await startEmbeddedPostgres({ directory: join(directory, 'cluster'), password: 'bench', databaseName: 'certkeeper' });
  try {
    await work(database);
  } finally {
    await database.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

export interface ApiProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  output: () => string;
}

/**
 * Starts the built API as its own process with the given environment, and waits until healthy.
 * BENCH_API_NODE_FLAGS adds node flags to it, to profile a benchmark's API (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/profiles`: the profile is written when the API exits).
 */
export async function startApi(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  let output = '';
  const nodeFlags = (process.env.BENCH_API_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'dist/apps/api/src/main.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API exited:\n${output}`);
    if (Date.now() - started > 60_000) throw new Error(`API not healthy after 60 s:\n${output}`);
    const healthy = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return { child, pid: child.pid!, baseUrl, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function stopApi(api: ApiProcess): Promise<void> {
  return new Promise((resolve) => {
    if (api.child.exitCode !== null) return resolve();
    api.child.once('exit', () => resolve());
    api.child.kill('SIGTERM');
  });
}

/**
 * User plus system CPU time of a process so far, in ms (/proc/<pid>/stat fields 14 and 15, in
 * 10 ms ticks); with `exitedChildren`, also that of its reaped children (fields 16 and 17).
 */
export async function cpuMsOf(pid: number, options: { exitedChildren?: boolean } = {}): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (options.exitedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) * 10;
}

/** VmRSS (now) and VmHWM (peak) of a process, in MB. */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

export async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) throw new Error(`login answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

export interface LoadResult {
  p50: number;
  p95: number;
  perSecond: number;
}

/**
 * Latency from `sequential` requests one at a time, then throughput from `concurrency` clients
 * for `seconds`. Every response must be 200; the body is read in full.
 */
export async function measure(url: string, token: string, options = { sequential: 200, concurrency: 8, seconds: 3 }): Promise<LoadResult> {
  const once = async () => {
    const begun = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    return performance.now() - begun;
  };
  for (let i = 0; i < 10; i += 1) await once(); // warm-up: plans cached, JIT warm
  const latencies: number[] = [];
  for (let i = 0; i < options.sequential; i += 1) latencies.push(await once());

  let completed = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const begun = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        await once();
        completed += 1;
      }
    }),
  );
  return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), perSecond: completed / ((performance.now() - begun) / 1000) };
}

// The administrator the agent benches create through ADMIN_EMAIL and ADMIN_PASSWORD.
export const BENCH_ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

/** The environment of a built API for the agent benches: fresh secrets, the bench administrator. */
export function benchApiEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
  };
}

// A plain Node TLS server as its own process, so handshakes do not share the bench's event loop.
const TLS_SERVER_SCRIPT = `
const tls = require('node:tls');
const server = tls.createServer({ cert: process.env.CERT, key: process.env.KEY });
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));`;

/**
 * Starts a TLS server for *.example.test on loopback as its own process; waits (at most 30 s) until
 * it listens. A server started again on the same port with a fresh certificate is every host's
 * renewal being deployed at once.
 */
export async function startTlsServer(port: number): Promise<ChildProcess> {
  const minted = await mintCertificate({ subject: 'CN=bench.example.test', sans: ['*.example.test'] });
  const child = spawn(process.execPath, ['-e', TLS_SERVER_SCRIPT], {
    env: { CERT: minted.pem, KEY: await privateKeyPem(minted.keys.privateKey), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the bench TLS server did not listen within 30 s'));
    }, 30_000);
    child.stdout.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return child;
}

/**
 * Gives the default scanner `hosts` host endpoints (bench-<i>.example.test at 127.0.0.1:tlsPort),
 * the given concurrency and, when named, cron; returns a fresh scanner token for an agent process.
 */
export async function seedAgentWork(
  baseUrl: string,
  adminToken: string,
  options: { hosts: number; tlsPort: number; concurrency: number; cron?: string },
): Promise<string> {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const scanners = (await call('GET', '/api/v1/scanners')) as { id: string; isDefault: boolean }[];
  const defaultId = scanners.find((s) => s.isDefault)!.id;
  await call('PATCH', `/api/v1/scanners/${defaultId}`, {
    scanConcurrency: options.concurrency,
    ...(options.cron === undefined ? {} : { scanCronExpression: options.cron }),
  });
  const scannerToken = ((await call('POST', `/api/v1/scanners/${defaultId}/regenerate-token`)) as { token: string }).token;
  const rows = Array.from({ length: options.hosts }, (_, i) => ({
    name: `bench-${i}`,
    dnsName: `bench-${i}.example.test`,
    ipAddress: '127.0.0.1',
    port: options.tlsPort,
  }));
  await call('POST', '/api/v1/endpoints/bulk', rows);
  return scannerToken;
}

/** Runs the built agent for one cycle; returns its wall time and (sampled) CPU time in ms. */
export function runAgentOnce(apiUrl: string, token: string): Promise<{ wallMs: number; cpuMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/scanner/src/main.js'), '--once'], {
      env: { PATH: process.env.PATH ?? '', SCANNER_API_URL: apiUrl, SCANNER_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let cpuMs = 0;
    const sampler = setInterval(() => {
      cpuMsOf(child.pid!).then(
        (ms) => (cpuMs = ms),
        () => undefined,
      );
    }, 50);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code === 0) resolve({ wallMs: performance.now() - started, cpuMs });
      else reject(new Error(`agent exited ${code}:\n${output}`));
    });
  });
}

/**
 * A reader of the CPU seconds of the bench's own PostgreSQL cluster: its postmaster (with the
 * time of children that already exited, which the kernel adds to their parent) and its live
 * backends. Not every `postgres` process on the machine: other clusters would count too.
 */
export async function clusterCpuSeconds(databaseUrl: string): Promise<() => Promise<number>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const directory = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory;
  await client.end();
  const postmaster = Number((await readFile(`${directory}/postmaster.pid`, 'utf8')).split('\n')[0]);
  return async () => {
    const backends = execSync(`pgrep -P ${postmaster} || true`).toString().trim().split('\n').filter(Boolean).map(Number);
    const live = await Promise.all(backends.map((pid) => cpuMsOf(pid).catch(() => 0)));
    return ((await cpuMsOf(postmaster, { exitedChildren: true })) + live.reduce((a, b) => a + b, 0)) / 1000;
  };
}
