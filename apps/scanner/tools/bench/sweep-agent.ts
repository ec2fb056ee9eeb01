import { performance } from 'node:perf_hooks';
import { parseNetworkScope } from '@certkeeper/domain/discovery';
import { runSweep } from '../../src/discovery/sweep';

/**
 * The sweeping agent of the sweep bench (sweep.ts forks it, once per run): `sweeps` runSweeps one
 * after another, as a long-lived agent does them, their figures sent back over IPC. A file of its
 * own so that the process loads what the agent's sweep loads and nothing of the bench (minted
 * certificates, TLS servers): its peak RSS is the sweep's.
 */

export type SweepAgentMode = 'no-rdns' | 'system-rdns';

export interface SweepAgentConfig {
  range: string;
  ports: number[];
  concurrency: number;
  mode: SweepAgentMode;
  sweeps: number;
}

export interface SweepFigures {
  wallMs: number;
  probed: number;
  addressesProbed: number;
  counts: { service: number; closed: number; silent: number; refusedByGuard: number; notTls: number };
  /** `address:port` of every service found. */
  found: string[];
  reports: number;
  userCpuMs: number;
  systemCpuMs: number;
  /** Event-loop utilization over the sweep, 0..1: near 1 means the agent is CPU-bound. */
  eventLoopUtilization: number;
}

export interface SweepAgentResult {
  /** In order: the first is a freshly started agent's (cold JIT, first certificate parse). */
  sweeps: SweepFigures[];
  /** process.resourceUsage().maxRSS after the last sweep: the agent's peak resident set, KiB. */
  maxRssKib: number;
  /** RSS once the modules are loaded, before the first sweep: Node's and the code's share of the peak. */
  baselineRssKib: number;
}

async function sweepOnce(config: SweepAgentConfig): Promise<SweepFigures> {
  const parsed = parseNetworkScope({ ranges: [config.range], ports: config.ports });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const found: string[] = [];
  let reports = 0;
  const usageBefore = process.resourceUsage();
  const eluBefore = performance.eventLoopUtilization();
  const started = performance.now();
  const summary = await runSweep(parsed.value, {
    concurrency: config.concurrency,
    report: (batch) => {
      reports += 1;
      for (const service of batch.findings) found.push(`${service.address}:${service.port}`);
    },
    // 'no-rdns': loopback addresses have no PTR records, so a resolver would only add the time its
    // queries take to go unanswered: the bench would measure DNS, not the sweep. 'system-rdns': the
    // agent's default, dnsReverseLookup(), asked only for the addresses with an open port.
    probeOptions: config.mode === 'no-rdns' ? { reverseLookup: null } : {},
  });
  const wallMs = performance.now() - started;
  const elu = performance.eventLoopUtilization(eluBefore);
  const usage = process.resourceUsage();
  return {
    wallMs,
    probed: summary.probed,
    addressesProbed: summary.addressesProbed,
    counts: summary.counts,
    found,
    reports,
    userCpuMs: (usage.userCPUTime - usageBefore.userCPUTime) / 1000,
    systemCpuMs: (usage.systemCPUTime - usageBefore.systemCPUTime) / 1000,
    eventLoopUtilization: elu.utilization,
  };
}

async function sweepAgent(config: SweepAgentConfig): Promise<SweepAgentResult> {
  const baselineRssKib = Math.round(process.memoryUsage.rss() / 1024);
  const sweeps: SweepFigures[] = [];
  for (let sweep = 0; sweep < config.sweeps; sweep += 1) sweeps.push(await sweepOnce(config));
  return { sweeps, maxRssKib: process.resourceUsage().maxRSS, baselineRssKib };
}

if (require.main === module) {
  if (typeof process.send !== 'function') {
    process.stderr.write('sweep-agent: run by the sweep bench (sweep.js), which forks it with an IPC channel\n');
    process.exit(2);
  }
  sweepAgent(JSON.parse(process.argv[2]) as SweepAgentConfig).then(
    (result) => process.send!(result, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
