import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordFigure } from '@certkeeper/net/testing';
import { freePort } from '../../src/common/net/free-port';

/**
 * Prints the foundation's figures (docs/performance.md): start command to healthy on a first start (empty
 * DATA_DIR: initdb, migrations, seeding) and a later one, the API
 * process's resident memory when idle, and login throughput. Medians over a few
 * runs, because this machine is shared and noisy. Nothing here asserts; it reports.
 */

// The repository root, from the compiled file in dist/apps/api/tools/bench.
const ROOT = join(__dirname, '../../../../..');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LOGIN_SECONDS = Number(process.env.BENCH_LOGIN_SECONDS ?? 5);
const LOGIN_CONCURRENCY = 8;

interface Started {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  msToHealthy: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs the README's start command and polls health until it answers 200. */
async function startCommand(dataDir: string): Promise<Started> {
  const port = await freePort();
  let output = '';
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start command exited:\n${output}`);
    if (performance.now() - started > 60_000) throw new Error(`not healthy after 60 s:\n${output}`);
    const healthy = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { child, output: () => output, baseUrl, msToHealthy: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function residentMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kilobytes / 1024;
}

async function loginThroughput(baseUrl: string, email: string, password: string): Promise<{ perSecond: number; p50: number; p95: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + LOGIN_SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const begun = performance.now();
      const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`login answered ${response.status}`);
      latencies.push(performance.now() - begun);
    }
  };
  const begun = performance.now();
  await Promise.all(Array.from({ length: LOGIN_CONCURRENCY }, worker));
  const seconds = (performance.now() - begun) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50: sorted[Math.floor(sorted.length * 0.5)],
    p95: sorted[Math.floor(sorted.length * 0.95)],
  };
}

async function main(): Promise<void> {
  const first: number[] = [];
  const later: number[] = [];
  const rss: number[] = [];
  let login: { perSecond: number; p50: number; p95: number } | undefined;

  for (let run = 0; run < RUNS; run += 1) {
    const dataDir = await mkdtemp(join(tmpdir(), 'certkeeper-bench-'));
    await chmod(dataDir, 0o755);
    try {
      const fresh = await startCommand(dataDir);
      first.push(fresh.msToHealthy);
      const password = (await readFile(join(dataDir, 'initial-admin-password'), 'utf8')).trim();
      await stop(fresh.child);

      const again = await startCommand(dataDir);
      later.push(again.msToHealthy);
      const pid = Number(/"pid":(\d+)/.exec(again.output())?.[1]);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      rss.push(await residentMegabytes(pid));
      if (run === RUNS - 1) login = await loginThroughput(again.baseUrl, 'admin@localhost', password);
      await stop(again.child);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  const rows = [
    [
      'first start, start command to healthy',
      `${median(first).toFixed(0)} ms`,
      'target <= 5000 ms',
      first.map((v) => v.toFixed(0)).join(', '),
    ],
    [
      'later start, start command to healthy',
      `${median(later).toFixed(0)} ms`,
      'target <= 2500 ms',
      later.map((v) => v.toFixed(0)).join(', '),
    ],
    ['API process RSS, idle 5 s after start', `${median(rss).toFixed(0)} MB`, 'target <= 200 MB', rss.map((v) => v.toFixed(0)).join(', ')],
    [
      `login throughput (${LOGIN_CONCURRENCY} concurrent, ${LOGIN_SECONDS} s)`,
      `${login!.perSecond.toFixed(1)} /s`,
      `p50 ${login!.p50.toFixed(0)} ms, p95 ${login!.p95.toFixed(0)} ms`,
      '',
    ],
  ];
  for (const [label, runs, targetMs] of [
    ['first', first, 5000],
    ['later', later, 2500],
  ] as const) {
    recordFigure({
      row: `npm start to healthy, ${label} start`,
      measured: `${median(runs).toFixed(0)} ms [${runs.map((v) => v.toFixed(0)).join(', ')}]`,
      target: `<= ${targetMs} ms`,
      met: median(runs) <= targetMs,
    });
  }
  process.stdout.write(`\nCertkeeper foundation benchmark (${RUNS} runs, medians; all runs listed)\n`);
  for (const [name, value, note, all] of rows)
    process.stdout.write(`  ${name.padEnd(48)} ${value.padStart(10)}   ${note}${all ? `   [${all}]` : ''}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
