import { nextCronTime, type ScannerConfig, type ScanResult, type SweepWorkItem, type WorkItem } from '@certkeeper/domain';
import { ApiError, type ScannerApiClient } from './api-client';
import { Backoff } from './backoff';
import { runCycle, type CycleReport } from './cycle';
import type { SweepRunner } from './discovery/sweep-runner';
import type { Log } from './log';
import { ResultBuffer } from './result-buffer';

export const CONFIG_RELOAD_MS = 5 * 60_000;
/** New endpoints are observed within this long, whatever the cron says. */
export const DEFAULT_NEW_WORK_POLL_MS = 60_000;
const MAX_JITTER_MS = 60_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When to run next: the cron's next minute plus a random delay of up to a tenth of the interval
 * (at most a minute), so agents of one fleet do not all probe and post at the same second.
 */
export function nextRunAt(cron: string, now: Date, random: () => number = Math.random): Date | null {
  const next = nextCronTime(cron, now);
  if (!next) return null;
  const following = nextCronTime(cron, next);
  const interval = following ? following.getTime() - next.getTime() : MAX_JITTER_MS * 10;
  return new Date(next.getTime() + Math.floor(random() * Math.min(MAX_JITTER_MS, interval / 10)));
}

export interface AgentDependencies {
  client: Pick<ScannerApiClient, 'getConfig' | 'getWork' | 'postResults'>;
  probe: (item: WorkItem) => Promise<ScanResult>;
  /** Runs the discovery sweeps each work listing names, beside the scan cycles. */
  sweeps?: Pick<SweepRunner, 'offer' | 'stop'>;
  log: Log;
  random?: () => number;
  newWorkPollMs?: number;
  configReloadMs?: number;
}

/**
 * The daemon: reads its record, runs on its cron with jitter, re-reads the record periodically
 * (a changed schedule or concurrency applies without a restart), buffers results the API could
 * not take and retries them with backoff. Every work listing's queued sweeps go to the sweep
 * runner, which runs them alongside the cycles. stop() lets the running cycle finish and stops
 * the running sweep after its probes in flight.
 */
export class Agent {
  private config: ScannerConfig | null = null;
  private readonly buffer = new ResultBuffer();
  private readonly backoff = new Backoff();
  private runTimer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private newWorkTimer: NodeJS.Timeout | undefined;
  private running: Promise<CycleReport | null> | null = null;
  private stopped = false;
  /**
   * Sweeps run only in the daemon started by start(). `--once` (runOnce alone) runs one scan
   * cycle and exits: a sweep may take hours and would hold the exit, so queued sweeps stay queued
   * for the daemon.
   */
  private daemon = false;

  constructor(private readonly deps: AgentDependencies) {}

  async start(): Promise<void> {
    this.daemon = true;
    await this.reloadConfig();
    this.reloadTimer = setInterval(() => void this.reloadConfig(), this.deps.configReloadMs ?? CONFIG_RELOAD_MS);
    this.newWorkTimer = setInterval(() => void this.scanNewEndpoints(), this.deps.newWorkPollMs ?? DEFAULT_NEW_WORK_POLL_MS);
    this.schedule();
    // In the background: stop() waits for it like for any running cycle.
    void this.scanNewEndpoints();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.runTimer);
    clearInterval(this.reloadTimer);
    clearInterval(this.newWorkTimer);
    await Promise.all([this.running, this.deps.sweeps?.stop()]);
  }

  /** Runs one cycle now (also what `--once` does). */
  async runOnce(options: { neverScannedOnly?: boolean } = {}): Promise<CycleReport | null> {
    if (!this.config) await this.reloadConfig();
    if (!this.config) return null;
    const api = this.deps.client;
    const client = {
      getWork: () =>
        api.getWork({ neverScanned: options.neverScannedOnly ?? false }).then((work) => {
          this.offerSweeps(work.sweeps);
          return work.items;
        }),
      postResults: (results: ScanResult[]) => api.postResults(results),
    };
    this.running = runCycle({
      probe: this.deps.probe,
      log: this.deps.log,
      client,
      buffer: this.buffer,
      concurrency: this.config.scanConcurrency,
    }).then(
      (report) => {
        this.deps.log('info', 'cycle finished', { ...report });
        return report;
      },
      (error: unknown) => {
        this.deps.log('error', `cycle failed: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      },
    );
    const report = await this.running;
    this.running = null;
    return report;
  }

  get pendingResults(): number {
    return this.buffer.size;
  }

  private schedule(delayMs?: number): void {
    if (this.stopped || !this.config) return;
    const at =
      delayMs === undefined ? nextRunAt(this.config.scanCronExpression, new Date(), this.deps.random) : new Date(Date.now() + delayMs);
    if (!at) {
      this.deps.log('error', `the schedule "${this.config.scanCronExpression}" never fires; waiting for a new one`);
      return;
    }
    this.runAt(at);
    this.deps.log('debug', 'next cycle scheduled', { at: at.toISOString() });
  }

  /**
   * setTimeout fires at once for a delay past 2^31 - 1 ms (about 24.8 days), which a monthly or
   * yearly schedule reaches: a far run is waited for in steps.
   */
  private runAt(at: Date): void {
    clearTimeout(this.runTimer);
    const wait = Math.max(0, at.getTime() - Date.now());
    this.runTimer = wait > MAX_TIMER_MS ? setTimeout(() => this.runAt(at), MAX_TIMER_MS) : setTimeout(() => void this.tick(), wait);
  }

  private async tick(): Promise<void> {
    const report = await this.runOnce();
    // Results left behind are retried with backoff instead of waiting for the next cron slot.
    this.schedule(report === null || report.pending > 0 ? this.backoff.next() : undefined);
    if (report !== null && report.pending === 0) this.backoff.reset();
  }

  /**
   * Probes endpoints that were never observed, unless a cycle is already running (it covers
   * them). Either way the listing's queued sweeps are handed on, so a sweep requested during a
   * long cycle starts within one poll.
   */
  private async scanNewEndpoints(): Promise<void> {
    if (this.stopped) return;
    if (!this.running) {
      await this.runOnce({ neverScannedOnly: true });
      return;
    }
    if (!this.deps.sweeps) return;
    try {
      this.offerSweeps((await this.deps.client.getWork({ neverScanned: true })).sweeps);
    } catch (error) {
      this.deps.log('warn', `could not look for queued sweeps: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private offerSweeps(sweeps: SweepWorkItem[]): void {
    if (!this.daemon || this.stopped || !this.config) return;
    this.deps.sweeps?.offer(sweeps, this.config.scanConcurrency);
  }

  private async reloadConfig(): Promise<void> {
    try {
      const config = await this.deps.client.getConfig();
      const scheduleChanged = this.config !== null && this.config.scanCronExpression !== config.scanCronExpression;
      if (this.config && (scheduleChanged || this.config.scanConcurrency !== config.scanConcurrency)) {
        this.deps.log('info', 'configuration changed', { cron: config.scanCronExpression, concurrency: config.scanConcurrency });
      }
      this.config = config;
      if (scheduleChanged) this.schedule();
    } catch (error) {
      const fatal = error instanceof ApiError && !error.transient;
      this.deps.log(
        fatal ? 'error' : 'warn',
        `could not read the scanner configuration: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
