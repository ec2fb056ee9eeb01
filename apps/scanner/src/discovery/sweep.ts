import { type NetworkScope, type ProbeTarget, scopeContains, scopeProbeTargets } from '@certkeeper/domain/discovery';
import {
  type DiscoveredService,
  dnsReverseLookup,
  probeSweepTarget,
  type ReverseLookup,
  type SweepProbeOptions,
  type SweepProbeResult,
} from './sweep-probe';

export interface SweepCounts {
  service: number;
  closed: number;
  silent: number;
  refusedByGuard: number;
  notTls: number;
}

/** One batch: progress so far and the services found since the previous batch. */
export interface SweepProgress {
  /** (address, port) pairs finished so far, of `probesTotal`. */
  probed: number;
  probesTotal: number;
  /** Addresses whose every port is finished (the sweep's `addressesProbed`), of `addressesTotal`. */
  addressesProbed: number;
  addressesTotal: number;
  counts: SweepCounts;
  /** Only the services found since the previous report; closed ports and silent hosts are counted above. */
  findings: DiscoveredService[];
  /** The last report of the sweep: every probe taken has finished. */
  final: boolean;
  /** On the final report: the sweep stopped early (aborted), so `probed < probesTotal`. */
  aborted: boolean;
}

export interface SweepOptions {
  /** Sockets in flight at once: the scanner's concurrency. */
  concurrency: number;
  /**
   * Receives each batch, in order, never two at once. A rejection fails the sweep: it takes no new
   * target, lets in-flight probes finish, and runSweep rejects with that error.
   */
  report: (report: SweepProgress) => Promise<void> | void;
  /** Stop taking targets (SIGTERM); probes in flight finish, then the final report goes out. */
  signal?: AbortSignal;
  /** A report after this many finished probes... Default 256. */
  reportEveryProbes?: number;
  /** ...or this long after the previous one, whichever comes first. Default 5 s. */
  reportEveryMs?: number;
  probeOptions?: SweepProbeOptions;
  /** The probe; tests replace it. */
  probe?: (target: ProbeTarget, options: SweepProbeOptions) => Promise<SweepProbeResult>;
}

export interface SweepSummary {
  probed: number;
  addressesProbed: number;
  counts: SweepCounts;
  aborted: boolean;
}

/**
 * Sweeps a network: every (address, port) of `scope`, at most `concurrency` probes in flight,
 * pulled one at a time from the scope's lazy iterator, so memory stays flat however large the
 * network. Each target is checked against the scope before it is probed; one outside it (a bug)
 * is never probed and fails the sweep. Probes never throw; a failed `report` is the only error
 * expected. Whatever the failure, probes in flight finish before runSweep settles.
 */
export async function runSweep(scope: NetworkScope, options: SweepOptions): Promise<SweepSummary> {
  const probe = options.probe ?? probeSweepTarget;
  const reportEveryProbes = Math.max(1, options.reportEveryProbes ?? 256);
  const reportEveryMs = options.reportEveryMs ?? 5000;
  const lookup = options.probeOptions?.reverseLookup;
  const probeOptions: SweepProbeOptions = {
    ...options.probeOptions,
    reverseLookup: lookup === null ? null : sharedReverseLookup(lookup ?? dnsReverseLookup(), Math.max(64, 2 * options.concurrency)),
  };
  const targets = scopeProbeTargets(scope);
  const counts: SweepCounts = { service: 0, closed: 0, silent: 0, refusedByGuard: 0, notTls: 0 };
  // Ports still to finish per address: at most `concurrency` addresses are open at once.
  const portsLeft = new Map<string, number>();
  let probed = 0;
  let addressesProbed = 0;
  let findings: DiscoveredService[] = [];
  let reportedAt = Date.now();
  let probedAtLastReport = 0;
  let failure: { error: unknown } | null = null;
  let reports: Promise<void> = Promise.resolve();

  const stopped = () => failure !== null || options.signal?.aborted === true;

  const sendReport = (final: boolean) => {
    const batch: SweepProgress = {
      probed,
      probesTotal: scope.probeCount,
      addressesProbed,
      addressesTotal: scope.addressCount,
      counts: { ...counts },
      findings,
      final,
      aborted: final && probed < scope.probeCount,
    };
    findings = [];
    reportedAt = Date.now();
    probedAtLastReport = probed;
    reports = reports
      .then(() => (failure === null ? options.report(batch) : undefined))
      .catch((error: unknown) => {
        failure ??= { error };
      });
  };

  const record = (target: ProbeTarget, result: SweepProbeResult) => {
    probed += 1;
    switch (result.outcome) {
      case 'service':
        counts.service += 1;
        findings.push(result.service);
        break;
      case 'closed':
        counts.closed += 1;
        break;
      case 'silent':
        counts.silent += 1;
        break;
      case 'refused-by-guard':
        counts.refusedByGuard += 1;
        break;
      case 'not-tls':
        counts.notTls += 1;
        break;
    }
    const left = (portsLeft.get(target.address) ?? 1) - 1;
    if (left > 0) portsLeft.set(target.address, left);
    else {
      portsLeft.delete(target.address);
      addressesProbed += 1;
    }
    if (probed - probedAtLastReport >= reportEveryProbes) sendReport(false);
  };

  const worker = async () => {
    while (!stopped()) {
      const next = targets.next();
      if (next.done) return;
      const target = next.value;
      if (!scopeContains(scope, target.address)) {
        failure ??= { error: new Error(`sweep refused to probe ${target.address}: it is outside the network's ranges`) };
        return;
      }
      if (!portsLeft.has(target.address)) portsLeft.set(target.address, scope.ports.length);
      let result: SweepProbeResult;
      try {
        result = await probe(target, probeOptions);
      } catch (error) {
        // probeSweepTarget never throws; a replacement that does fails the sweep like a bug would.
        failure ??= { error };
        return;
      }
      record(target, result);
    }
  };

  const ticker = setInterval(
    () => {
      if (probed > probedAtLastReport && Date.now() - reportedAt >= reportEveryMs) sendReport(false);
    },
    Math.max(10, Math.min(reportEveryMs, 1000)),
  );
  ticker.unref();
  try {
    const workers = Math.max(1, Math.min(options.concurrency, scope.probeCount));
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    clearInterval(ticker);
  }
  sendReport(true);
  await reports;
  if (failure !== null) throw (failure as { error: unknown }).error;
  return { probed, addressesProbed, counts, aborted: options.signal?.aborted === true && probed < scope.probeCount };
}

/**
 * One reverse lookup per address, however many of its ports answer. Targets come address by
 * address, and at most `concurrency` addresses are in flight, so only the latest `keep` are kept.
 */
function sharedReverseLookup(lookup: ReverseLookup, keep: number): ReverseLookup {
  const cache = new Map<string, Promise<string | null>>();
  return (address) => {
    let name = cache.get(address);
    if (name === undefined) {
      name = lookup(address).catch(() => null);
      cache.set(address, name);
      if (cache.size > keep) cache.delete(cache.keys().next().value as string);
    }
    return name;
  };
}
