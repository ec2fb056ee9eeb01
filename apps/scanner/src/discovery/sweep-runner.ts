import { type NetworkScope, parseNetworkScope } from '@certkeeper/domain/discovery';
import { RESULTS_BATCH_BYTES, type SweepReport, type SweepWorkItem } from '@certkeeper/domain/protocol';
import { ApiError, type ScannerApiClient } from '../api-client';
import { Backoff } from '../backoff';
import type { Log } from '../log';
import { runSweep, type SweepOptions, type SweepProgress } from './sweep';
import { SWEEP_CONNECT_TIMEOUT_MS, SWEEP_HANDSHAKE_TIMEOUT_MS, type SweepProbeOptions } from './sweep-probe';
import { toSweepReports } from './sweep-reports';

/** How long one report is retried while the API is unreachable. */
export const SWEEP_REPORT_RETRY_MS = 10 * 60_000;
/** After stop(), how long the last reports are still retried: a shutdown must not wait ten minutes. */
export const SWEEP_STOP_GRACE_MS = 5000;

export interface SweepRunnerOptions {
  client: Pick<ScannerApiClient, 'startSweep' | 'postSweepReports'>;
  log: Log;
  /** OUTBOUND_DENY's guard and the deadlines (see sweepProbeDeadlines); the reverse lookup defaults to DNS. */
  probeOptions?: SweepProbeOptions;
  /** runSweep's own knobs, which tests replace: the probe and how often a batch goes out. */
  sweepOptions?: Pick<SweepOptions, 'probe' | 'reportEveryProbes' | 'reportEveryMs'>;
  /** Largest request body, in bytes of JSON. Default RESULTS_BATCH_BYTES. */
  maxRequestBytes?: number;
  reportRetryMs?: number;
  stopGraceMs?: number;
  /** The retry schedule of one report. */
  backoff?: () => Backoff;
}

/**
 * The deadlines of a sweep probe: the sweep's own short ones (a sweep mostly meets silence, and
 * the SCANNER_* defaults of 5 s and 10 s would make a /16 take hours), but never longer than the
 * operator's SCANNER_* deadlines, so lowering those for a fast network speeds sweeps up too.
 */
export function sweepProbeDeadlines(scanner: { connectTimeoutMs: number; handshakeTimeoutMs: number }) {
  return {
    connectTimeoutMs: Math.min(scanner.connectTimeoutMs, SWEEP_CONNECT_TIMEOUT_MS),
    handshakeTimeoutMs: Math.min(scanner.handshakeTimeoutMs, SWEEP_HANDSHAKE_TIMEOUT_MS),
  };
}

/** The API said the sweep is not running any more (or not ours): stop probing, drop the rest. */
class SweepRejected extends Error {}

/** A report could not be delivered: the API will fail the sweep after its own deadline. */
class SweepReportFailed extends Error {}

/**
 * Runs the discovery sweeps the API queues for this scanner (docs/api-contract.md section 8), one at a time,
 * oldest first, beside the scan cycles: claims each, probes the network's current scope and
 * posts its progress and findings in order, the last report `final`. Every work listing replaces
 * the queue (it is the API's word on what is queued); a sweep the API gives to someone else, or
 * that fails here, is skipped, and the next one runs.
 */
export class SweepRunner {
  private queue: SweepWorkItem[] = [];
  private concurrency = 1;
  private current: { sweepId: string; controller: AbortController } | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  /** Sweeps whose claim or a report could not be delivered, since the runner was made. */
  private undelivered = 0;
  /** Reports are given up on after this instant; stop() brings it forward. */
  private stopDeadline = Infinity;
  private wakeSleepers: (() => void)[] = [];

  constructor(private readonly options: SweepRunnerOptions) {}

  /**
   * The queued sweeps of a work listing, oldest first, and the scanner's concurrency as of that
   * listing; the next sweep to start uses it. Ignored once stopped.
   */
  offer(sweeps: readonly SweepWorkItem[], concurrency: number): void {
    if (this.stopped) return;
    this.concurrency = Math.max(1, concurrency);
    this.queue = sweeps.filter((sweep) => sweep.sweepId !== this.current?.sweepId);
    this.kick();
  }

  /**
   * `--once`: runs the sweeps of one work listing, oldest first, and settles when none is left.
   * Resolves with how many of them the API did not hear the end of (a claim or a report that
   * could not be delivered); a sweep the API gave to someone else or stopped is not one of them.
   */
  async runAll(sweeps: readonly SweepWorkItem[], concurrency: number): Promise<number> {
    const before = this.undelivered;
    this.offer(sweeps, concurrency);
    await this.idle();
    return this.undelivered - before;
  }

  /** Settles when no sweep runs and none is queued (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /**
   * Aborts the running sweep: it takes no new target, the probes in flight finish and its final
   * report goes out, retried for a few seconds at most. Queued sweeps stay queued on the API.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue = [];
    this.stopDeadline = Date.now() + (this.options.stopGraceMs ?? SWEEP_STOP_GRACE_MS);
    this.current?.controller.abort();
    this.wakeSleepers.splice(0).forEach((wake) => wake());
    await this.idle();
  }

  private kick(): void {
    if (this.loop || this.stopped) return;
    this.loop = this.drain().finally(() => {
      this.loop = null;
      // An offer that came while the loop was ending.
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next && !this.stopped; next = this.queue.shift()) {
      await this.runOne(next);
    }
  }

  private async runOne(listed: SweepWorkItem): Promise<void> {
    // Before the claim, so that a stop() during it still reaches the sweep: it then probes nothing.
    const controller = new AbortController();
    this.current = { sweepId: listed.sweepId, controller };
    try {
      const sweep = await this.claim(listed.sweepId);
      if (sweep === null) return;
      const parsed = parseNetworkScope({ ranges: sweep.ranges, ports: sweep.ports });
      if (!parsed.ok) {
        const error = `the network's ranges or ports could not be read: ${parsed.problems.join('; ')}`;
        this.options.log('error', `sweep ${sweep.sweepId} failed: ${error}`, { sweepId: sweep.sweepId });
        await this.postFinal(sweep.sweepId, 0, error);
        return;
      }
      await this.sweep(sweep, parsed.value, controller.signal);
    } finally {
      this.current = null;
    }
  }

  /** The sweep as it is now, or null when it is not ours to run; a failure is logged. */
  private async claim(sweepId: string): Promise<SweepWorkItem | null> {
    const { log } = this.options;
    try {
      const sweep = await this.options.client.startSweep(sweepId);
      if (sweep === null) log('info', `sweep ${sweepId} is no longer queued for this agent; skipping it`, { sweepId });
      return sweep;
    } catch (error) {
      this.undelivered += 1;
      // Still queued on the API: the next work listing offers it again.
      log(error instanceof ApiError && error.transient ? 'warn' : 'error', `could not claim sweep ${sweepId}: ${messageOf(error)}`, {
        sweepId,
      });
      return null;
    }
  }

  private async sweep(sweep: SweepWorkItem, scope: NetworkScope, signal: AbortSignal): Promise<void> {
    const { log } = this.options;
    const { sweepId } = sweep;
    const concurrency = this.concurrency;
    log('info', 'sweep started', { sweepId, networkId: sweep.networkId, addresses: scope.addressCount, ports: scope.ports, concurrency });
    let addressesProbed = 0;
    try {
      const summary = await runSweep(scope, {
        ...this.options.sweepOptions,
        concurrency,
        signal,
        probeOptions: this.options.probeOptions,
        report: async (progress) => {
          addressesProbed = progress.addressesProbed;
          await this.postProgress(sweepId, progress);
        },
      });
      log(summary.aborted ? 'warn' : 'info', summary.aborted ? 'sweep stopped' : 'sweep finished', {
        sweepId,
        addressesProbed: summary.addressesProbed,
        addressesTotal: scope.addressCount,
        probed: summary.probed,
        ...summary.counts,
      });
    } catch (error) {
      if (error instanceof SweepRejected) log('warn', `sweep ${sweepId} stopped: ${error.message}`, { sweepId });
      else if (error instanceof SweepReportFailed) {
        this.undelivered += 1;
        log('error', `sweep ${sweepId} failed: ${error.message}`, { sweepId });
      } else {
        // A bug (a probe that threw, a target outside the scope): the API hears why at once.
        log('error', `sweep ${sweepId} failed: ${messageOf(error)}`, { sweepId });
        await this.postFinal(sweepId, addressesProbed, `the agent failed: ${messageOf(error)}`);
      }
    }
  }

  private async postProgress(sweepId: string, progress: SweepProgress): Promise<void> {
    const error = progress.aborted
      ? `the agent was stopped after ${progress.addressesProbed} of ${progress.addressesTotal} addresses`
      : null;
    await this.postInOrder(toSweepReports(sweepId, progress, error, this.maxRequestBytes));
  }

  private async postInOrder(reports: SweepReport[]): Promise<void> {
    for (const report of reports) await this.post(report);
  }

  private get maxRequestBytes(): number {
    return this.options.maxRequestBytes ?? RESULTS_BATCH_BYTES;
  }

  /** A last report for a sweep that ends without runSweep's; a failure is only logged. */
  private async postFinal(sweepId: string, addressesProbed: number, error: string): Promise<void> {
    try {
      await this.postInOrder(toSweepReports(sweepId, { addressesProbed, findings: [], final: true }, error, this.maxRequestBytes));
    } catch (failure) {
      this.undelivered += 1;
      this.options.log('error', `could not report the failure of sweep ${sweepId}: ${messageOf(failure)}`, { sweepId });
    }
  }

  /**
   * Posts one report, retrying transient failures with backoff for reportRetryMs (a few seconds
   * once stopping). The same reportId on every attempt: a retry of a report that did arrive is a
   * duplicate, not a second batch.
   */
  private async post(report: SweepReport): Promise<void> {
    const backoff = this.options.backoff?.() ?? new Backoff(1000, 60_000);
    const giveUpAt = Date.now() + (this.options.reportRetryMs ?? SWEEP_REPORT_RETRY_MS);
    for (;;) {
      let outcomes;
      try {
        outcomes = await this.options.client.postSweepReports([report]);
      } catch (error) {
        const left = Math.min(giveUpAt, this.stopDeadline) - Date.now();
        if (!(error instanceof ApiError) || !error.transient || left <= 0) {
          throw new SweepReportFailed(`could not post a report: ${messageOf(error)}`);
        }
        await this.sleep(Math.min(backoff.next(), left));
        continue;
      }
      const outcome = outcomes.find((candidate) => candidate.reportId === report.reportId);
      if (outcome === undefined) throw new SweepReportFailed('the API did not answer for the report');
      if (outcome.status !== 'rejected') return;
      if (outcome.code === 409) throw new SweepRejected(`the API no longer runs it: ${outcome.error}`);
      throw new SweepReportFailed(`the API rejected a report (${outcome.code}): ${outcome.error}`);
    }
  }

  /** Waits, or less when stop() is called meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.wakeSleepers = this.wakeSleepers.filter((sleeper) => sleeper !== wake);
        resolve();
      }, ms);
      this.wakeSleepers.push(wake);
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
