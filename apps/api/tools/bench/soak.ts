import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/common/net/free-port';
import {
  BENCH_ADMIN,
  benchApiEnv,
  login,
  memoryOf,
  ROOT,
  seedAgentWork,
  startApi,
  startTlsServer,
  stopApi,
  withBenchDatabase,
} from './lib';

/**
 * The soak (docs/performance.md): the real agent daemon over SOAK_HOSTS host endpoints (default 2,000) for
 * SOAK_MINUTES (default 30), with the built API and the agent each in its own process, so each
 * RSS is that program's own and not the bench's. Every SOAK_SAMPLE_MINUTES (default 5) it prints
 * VmRSS of both from /proc/<pid>/status, and at the end the max/min ratio of the samples taken
 * after the first full cycle, beside the target "flat within 10%". A leak per cycle (a growing
 * map of links, certificates or buffered results) shows as a rising column.
 *
 * Cycles back to back: the agent gets SCANNER_BACK_TO_BACK=true, which starts the next cron cycle
 * as soon as one ends, once the agent reads it (a variable proposed for it); until
 * then the cron `* * * * *` (the finest a 5-field cron allows) starts one every minute, back to back
 * only when one lasts a minute. The summary prints the share of the time spent in cycles, so the
 * output says which of the two ran.
 */

const minutesFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of minutes`);
  return value;
};
const MINUTES = minutesFrom('SOAK_MINUTES', 30);
const SAMPLE_MINUTES = minutesFrom('SOAK_SAMPLE_MINUTES', 5);
const HOSTS = Number(process.env.SOAK_HOSTS ?? 2000);
if (!Number.isInteger(HOSTS) || HOSTS < 1) throw new Error('SOAK_HOSTS must be a positive whole number');
const CONCURRENCY = 64;
const CRON = '* * * * *';
// Between printed samples, RSS is read this often too, for the range of the whole run.
const FINE_SAMPLE_MS = 5000;
const OVERLAP_TOLERANCE_MS = 50;
const MB = (value: number) => value.toFixed(1).padStart(9);

/** Full cycles (every endpoint probed and posted), as [start, end] in ms since the epoch. */
type Cycles = [number, number][];

/**
 * Starts the built agent daemon. Its stdout is JSON lines (apps/scanner/src/log.ts): every
 * "cycle finished" (cron) or "due work scanned" line over all hosts counts as a cycle (the first,
 * over hosts never scanned, is a due one: docs/decisions/0012-scan-now.md); warnings and errors
 * are echoed. Only the unfinished last line is kept, so the bench's memory does not grow with the log.
 */
function startAgent(apiUrl: string, token: string, cycles: Cycles, partialCycles: number[]): ChildProcess {
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/scanner/src/main.js')], {
    // SCANNER_BACK_TO_BACK: see the header; an agent that does not read it runs on the cron alone.
    env: { PATH: process.env.PATH ?? '', SCANNER_API_URL: apiUrl, SCANNER_TOKEN: token, SCANNER_BACK_TO_BACK: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let partial = '';
  let echoed = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let entry: { time?: string; level?: string; msg?: string; endpoints?: number; durationMs?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      const cycle = entry.msg === 'cycle finished' || entry.msg === 'due work scanned';
      if (cycle && entry.endpoints === HOSTS && typeof entry.durationMs === 'number') {
        // The agent's own clock: when this bench reads the line late (a busy machine), the cycle still ended at `time`.
        const end = entry.time ? Date.parse(entry.time) : Date.now();
        cycles.push([end - entry.durationMs, end]);
      } else if (cycle && typeof entry.endpoints === 'number' && entry.endpoints > 0) {
        // A cycle over part of the hosts: due work (a requested scan), or a cron cycle the API gave less work.
        partialCycles.push(entry.endpoints);
      } else if ((entry.level === 'warn' || entry.level === 'error') && echoed < 20) {
        echoed += 1;
        process.stderr.write(`agent: ${line}\n`);
      }
    }
  });
  return child;
}

/** The share of the time since the first cycle began spent in cycles, and how many cycles began before the one before had ended. */
function duty(cycles: Cycles, now: number): { busy: number; overlapping: number } {
  if (cycles.length === 0) return { busy: 0, overlapping: 0 };
  const sorted = [...cycles].sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let overlapping = 0;
  let reach = sorted[0][0];
  for (const [begin, end] of sorted) {
    // Back to back, the next cycle begins in the millisecond the last one ended: not an overlap.
    if (begin < reach - OVERLAP_TOLERANCE_MS) overlapping += 1;
    covered += Math.max(0, end - Math.max(begin, reach));
    reach = Math.max(reach, end);
  }
  return { busy: covered / (now - sorted[0][0]), overlapping };
}

function stopAgent(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    // SIGTERM lets the running cycle finish; a cycle of 2,000 hosts lasts seconds, not minutes.
    const force = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const ratio = (values: number[]) => (values.length === 0 ? NaN : Math.max(...values) / Math.min(...values));

interface Series {
  /** The printed samples after the first full cycle: what the target is about. */
  printed: number[];
  /** The lowest of the fine samples in each printed row's window: a leak raises this floor. */
  floors: number[];
  /** Every fine sample after the first full cycle, in and between cycles (the GC's sawtooth). */
  all: number[];
}
const series = (): Series => ({ printed: [], floors: [], all: [] });

/** Samples both processes every FINE_SAMPLE_MS until SOAK_MINUTES are over, printing a row every SOAK_SAMPLE_MINUTES. */
async function soak(pids: { api: number; agent: number }, cycles: Cycles, agentExit: () => string | null) {
  const result = { api: series(), agent: series() };
  const windowLow = { api: Infinity, agent: Infinity };
  const started = Date.now();
  let nextRow = 0;
  for (;;) {
    const failure = agentExit();
    if (failure) throw new Error(failure);
    const elapsedMs = Date.now() - started;
    const [api, agent] = await Promise.all([memoryOf(pids.api), memoryOf(pids.agent)]);
    const counted = cycles.length > 0;
    windowLow.api = Math.min(windowLow.api, api.rss);
    windowLow.agent = Math.min(windowLow.agent, agent.rss);
    if (counted) {
      result.api.all.push(api.rss);
      result.agent.all.push(agent.rss);
    }
    if (elapsedMs >= nextRow * SAMPLE_MINUTES * 60_000 - FINE_SAMPLE_MS / 2) {
      if (counted) {
        result.api.printed.push(api.rss);
        result.agent.printed.push(agent.rss);
        if (nextRow > 0) {
          result.api.floors.push(windowLow.api);
          result.agent.floors.push(windowLow.agent);
        }
      }
      process.stdout.write(
        `  ${(elapsedMs / 60_000).toFixed(1).padStart(6)} ${String(cycles.length).padStart(6)} ${MB(api.rss)} ${MB(agent.rss)} ${MB(windowLow.api)} ${MB(windowLow.agent)}${counted ? '' : '   before the first full cycle: not counted'}\n`,
      );
      windowLow.api = Infinity;
      windowLow.agent = Infinity;
      nextRow += 1;
    }
    if (elapsedMs >= MINUTES * 60_000) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.min(FINE_SAMPLE_MS, MINUTES * 60_000 - elapsedMs)));
  }
}

async function main(): Promise<void> {
  await withBenchDatabase('soak', async (database) => {
    const tlsPort = await freePort();
    const tlsServer = await startTlsServer(tlsPort);
    const api = await startApi(benchApiEnv(database.url));
    const cycles: Cycles = [];
    const partial: number[] = [];
    let agent: ChildProcess | null = null;
    try {
      const adminToken = await login(api.baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
      const scannerToken = await seedAgentWork(api.baseUrl, adminToken, { hosts: HOSTS, tlsPort, concurrency: CONCURRENCY, cron: CRON });
      agent = startAgent(api.baseUrl, scannerToken, cycles, partial);
      let agentExit: string | null = null;
      agent.once('exit', (code, signal) => (agentExit = `the agent exited (${signal ?? code}) during the soak`));

      process.stdout.write(
        `\nCertkeeper soak (${HOSTS} host endpoints, concurrency ${CONCURRENCY}, cron "${CRON}", ${MINUTES} min, a row every ${SAMPLE_MINUTES} min)\n`,
      );
      process.stdout.write(
        `  ${'minute'.padStart(6)} ${'cycles'.padStart(6)} ${'API RSS MB'.padStart(10)} ${'agent RSS'.padStart(9)} ${'API low'.padStart(9)} ${'agent low'.padStart(9)}   (low: the lowest ${FINE_SAMPLE_MS / 1000}-s sample since the row before)\n`,
      );
      const result = await soak({ api: api.pid, agent: agent.pid! }, cycles, () => agentExit);

      const [apiMemory, agentMemory] = await Promise.all([memoryOf(api.pid), memoryOf(agent.pid!)]);
      const { busy, overlapping } = duty(cycles, Date.now());
      const seconds = (ms: number) => (ms / 1000).toFixed(1);
      const later = cycles.slice(1).map(([begin, end]) => end - begin);
      process.stdout.write(
        `  full cycles: ${cycles.length}${cycles.length === 0 ? '' : `, the first ${seconds(cycles[0][1] - cycles[0][0])} s`}${later.length === 0 ? '' : `, the others ${seconds(later.reduce((a, b) => a + b, 0) / later.length)} s on average`}; in cycles ${(busy * 100).toFixed(0)} % of the time since the first began (100 %: back to back); ${overlapping} began before the one before had ended; ${partial.length} cycles over part of the hosts${partial.length === 0 ? '' : ` (${partial.slice(0, 10).join(', ')}${partial.length > 10 ? ', ...' : ''} endpoints)`}\n`,
      );
      process.stdout.write(`  peak RSS (VmHWM): API ${apiMemory.peak.toFixed(1)} MB, agent ${agentMemory.peak.toFixed(1)} MB\n`);
      for (const [name, values] of [
        ['API', result.api],
        ['agent', result.agent],
      ] as const) {
        process.stdout.write(
          `  ${`${name} RSS max/min after the first cycle`.padEnd(40)} ${ratio(values.printed).toFixed(3)}   target <= 1.10 (flat within 10 %)   [${values.printed.length} rows; floors ${ratio(values.floors).toFixed(3)}; all ${values.all.length} samples ${ratio(values.all).toFixed(3)}]\n`,
        );
      }
    } finally {
      if (agent) await stopAgent(agent);
      await stopApi(api);
      tlsServer.kill();
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
