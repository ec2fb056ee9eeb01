import { fork } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import type { SweepAgentConfig, SweepAgentMode, SweepAgentResult, SweepFigures } from './sweep-agent';

/**
 * A discovery sweep's cost: a /22 of loopback addresses (127.0.4.0/22, 1,024 addresses) on two
 * ports at concurrency 256. Port A has a Node TLS server on 36 of the addresses (each bound to its
 * own 127.0.4.x: Linux answers on all of 127.0.0.0/8), port B is closed everywhere. A closed port
 * on loopback answers the SYN with a RST at once, so nearly every probe meets a closed port: the
 * target's "closed addresses per second" is the sweep's own cost per target, not network latency.
 *
 * The sweeping agent is another process (sweep-agent.ts, forked afresh for each run), so its
 * peak RSS (process.resourceUsage().maxRSS) is the sweep's alone, not the TLS servers'. Each
 * agent sweeps BENCH_SWEEPS times (default 8) one after another, as a long-lived agent does: the
 * first sweep is a fresh agent's (cold JIT), the later ones show the steady rate, and the V8 heap
 * grows over several sweeps before a full GC, so the peak RSS of one sweep alone would flatter.
 * Two modes: no reverse DNS, and the agent's default (the system resolver, asked only for the
 * addresses with an open port; a resolver that leaves PTR queries for 127.0.4.x unanswered adds
 * its 1 s deadline to a sweep, which is DNS's time, not the sweep's). Medians of BENCH_RUNS runs (default 3). Reports, never asserts:
 * it exits non-zero only when the bench itself breaks (a server not found, a port not closed).
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SWEEPS = Math.max(1, Number(process.env.BENCH_SWEEPS ?? 8));
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

const RANGE = '127.0.4.0/22';
const RANGE_FIRST = [127, 0, 4, 0];
const ADDRESSES = 1024;
const SERVICES = 36;
const CONCURRENCY = 256;
const TARGETS = { addressesPerSecond: 1000, rssMb: 150 };
/** A sweep takes well under a second; an agent still running after this is a broken bench. */
const CHILD_DEADLINE_MS = 60_000;

const MODE_LABELS: Record<SweepAgentMode, string> = { 'no-rdns': 'no reverse DNS', 'system-rdns': 'system resolver' };

/** The 127.0.4.x addresses the TLS servers listen on: spread evenly over the /22. */
function serviceAddresses(): string[] {
  const step = Math.floor(ADDRESSES / SERVICES);
  return Array.from({ length: SERVICES }, (_, index) => addressAt(index * step + 5));
}

function addressAt(offset: number): string {
  const value = ((RANGE_FIRST[2] << 8) | RANGE_FIRST[3]) + offset;
  return `${RANGE_FIRST[0]}.${RANGE_FIRST[1]}.${value >> 8}.${value & 255}`;
}

interface Services {
  port: number;
  addresses: string[];
  close(): Promise<void>;
}

/**
 * A Node TLS server on each service address, all on one port: the kernel picks it for the first
 * address, and the rest must be able to bind it too (else another pick, a few times).
 */
async function startServices(addresses: string[]): Promise<Services> {
  const minted = await mintCertificate({ sans: ['sweep.bench.test'] });
  const options = { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const servers: TlsServer[] = [];
    const closeAll = () => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))).then(() => undefined);
    try {
      let port = 0;
      for (const address of addresses) {
        // The sweep drops each connection once it has the chain; the server's error for that is noise.
        const server = createTlsServer(options, (socket) => socket.destroy());
        server.on('tlsClientError', () => undefined);
        server.listen(port, address);
        await once(server, 'listening'); // rejects on 'error': EADDRINUSE when the port is taken there
        servers.push(server);
        port = (server.address() as AddressInfo).port;
      }
      return { port, addresses, close: closeAll };
    } catch (error) {
      await closeAll();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error(`no port free on all of ${addresses.length} loopback addresses after 5 attempts`);
}

/** A port nothing listens on (the kernel's pick on the range's first address, released at once). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  server.listen(0, addressAt(0));
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function runAgent(config: SweepAgentConfig): Promise<SweepAgentResult> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'sweep-agent.js'), [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: SweepAgentResult | null = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the sweep agent did not finish within ${CHILD_DEADLINE_MS} ms`));
    }, CHILD_DEADLINE_MS);
    child.on('message', (message) => {
      result = message as SweepAgentResult;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result !== null && code === 0) resolve(result);
      else reject(new Error(`the sweep agent exited with ${signal ?? `code ${code}`} without a result`));
    });
  });
}

/** The sweep found exactly the servers, and every other probe met a closed port (or, under load, silence). */
function checkSweep(result: SweepFigures, services: Services): void {
  const expected = services.addresses.map((address) => `${address}:${services.port}`);
  const found = new Set(result.found);
  const missing = expected.filter((service) => !found.has(service));
  const extra = result.found.filter((service) => !expected.includes(service));
  const problems = [
    ...(missing.length > 0 ? [`services not found: ${missing.join(', ')}`] : []),
    ...(extra.length > 0 ? [`unexpected services (is something else listening in ${RANGE}?): ${extra.join(', ')}`] : []),
    ...(result.counts.service !== expected.length ? [`${result.counts.service} services counted, ${expected.length} expected`] : []),
    ...(result.counts.notTls + result.counts.refusedByGuard > 0
      ? [`${result.counts.notTls} not-TLS and ${result.counts.refusedByGuard} refused probes: something else answers in ${RANGE}`]
      : []),
    ...(result.probed !== 2 * ADDRESSES || result.addressesProbed !== ADDRESSES
      ? [`${result.probed} probes over ${result.addressesProbed} addresses, ${2 * ADDRESSES} over ${ADDRESSES} expected`]
      : []),
  ];
  if (problems.length > 0) throw new Error(`the sweep did not see the bench's network as set up:\n  ${problems.join('\n  ')}`);
}

const mb = (kib: number) => (kib * 1024) / 1e6; // decimal megabytes, as the target is stated
const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function measureMode(mode: SweepAgentMode, services: Services, ports: [number, number]): Promise<string> {
  const runs: SweepAgentResult[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const result = await runAgent({ range: RANGE, ports, concurrency: CONCURRENCY, mode, sweeps: SWEEPS });
    result.sweeps.forEach((sweep) => checkSweep(sweep, services));
    runs.push(result);
  }
  const first = runs.map((result) => result.sweeps[0]);
  const later = runs.flatMap((result) => result.sweeps.slice(1));
  const rssMb = median(runs.map((result) => mb(result.maxRssKib)));
  const worstRssMb = Math.max(...runs.map((result) => mb(result.maxRssKib)));
  const baselineMb = median(runs.map((result) => mb(result.baselineRssKib)));
  const all = runs.flatMap((result) => result.sweeps);
  const label = MODE_LABELS[mode].padEnd(16);
  const indent = ' '.repeat(label.length + 3);
  return [
    `  ${label} ${rateLine('first sweep ', first)}`,
    ...(later.length > 0 ? [`${indent}${rateLine('later sweeps', later)}`] : []),
    `${indent}agent peak RSS ${fmt(rssMb, 1)} MB over ${SWEEPS} sweep${SWEEPS === 1 ? '' : 's'} ` +
      `(target < ${TARGETS.rssMb} MB: ${rssMb < TARGETS.rssMb ? 'met' : 'MISSED'}; worst run ${fmt(worstRssMb, 1)} MB, ${fmt(baselineMb, 1)} MB before the first sweep)`,
    `${indent}per sweep: ${fmt(median(all.map((sweep) => sweep.counts.closed)))} closed, ${services.addresses.length} services, ` +
      `${fmt(median(all.map((sweep) => sweep.counts.silent)))} silent, ${median(all.map((sweep) => sweep.reports))} reports; agent CPU (user + system) ` +
      `${cpuOf(first)} first, ${later.length > 0 ? `${cpuOf(later)} later` : 'no later sweeps'}; event loop ${fmt(median(all.map((sweep) => sweep.eventLoopUtilization)) * 100)}% busy`,
  ].join('\n');
}

/** Addresses and probes per second of the median sweep among `sweeps`, beside the target. */
function rateLine(name: string, sweeps: SweepFigures[]): string {
  const walls = sweeps.map((sweep) => sweep.wallMs);
  const wallMs = median(walls);
  const addressesPerSecond = ADDRESSES / (wallMs / 1000);
  const verdict = addressesPerSecond >= TARGETS.addressesPerSecond ? 'met' : 'MISSED';
  const spread = walls.length <= 3 ? walls.map((ms) => fmt(ms)).join(', ') : `${fmt(Math.min(...walls))} to ${fmt(Math.max(...walls))}`;
  return (
    `${name} ${fmt(addressesPerSecond).padStart(6)} addresses/s (target >= ${fmt(TARGETS.addressesPerSecond)}: ${verdict}), ` +
    `${fmt((2 * ADDRESSES) / (wallMs / 1000)).padStart(6)} probes/s, ${fmt(wallMs)} ms per sweep (${spread} ms)`
  );
}

/** Median agent CPU time of a sweep: user + system. */
const cpuOf = (sweeps: SweepFigures[]) =>
  `${fmt(median(sweeps.map((sweep) => sweep.userCpuMs)))} + ${fmt(median(sweeps.map((sweep) => sweep.systemCpuMs)))} ms`;

async function main(): Promise<void> {
  const services = await startServices(serviceAddresses());
  try {
    const ports: [number, number] = [services.port, await closedPort()];
    const lines: string[] = [];
    for (const mode of ['no-rdns', 'system-rdns'] as const) lines.push(await measureMode(mode, services, ports));
    process.stdout.write(
      `\nDiscovery sweep of ${RANGE} on loopback: ${fmt(ADDRESSES)} addresses x ports ${ports[0]} (${SERVICES} TLS services) ` +
        `and ${ports[1]} (closed), concurrency ${CONCURRENCY}, ${RUNS} runs of one agent process each (medians)\n${lines.join('\n')}\n`,
    );
  } finally {
    await services.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
