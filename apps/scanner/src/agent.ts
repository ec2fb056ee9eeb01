import { nextCronTime, type ScannerConfig, type ScanResult, type WorkItem } from '@certkeeper/domain';
import { ApiError, type ScannerApiClient } from './api-client';
import { Backoff } from './backoff';
import { runCycle, type CycleReport } from './cycle';
import type { Log } from './log';
import { ResultBuffer } from './result-buffer';

export const CONFIG_RELOAD_MS = 5 * 60_000;
/** New endpoints are observed within this long, whatever the cron says. */
export const DEFAULT_NEW_WORK_POLL_MS = 60_000;
const MAX_JITTER_MS = 60_000;

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
  log: Log;
  random?: () => number;
  newWorkPollMs?: number;
  configReloadMs?: number;
}

/**
 * The daemon: reads its record, runs on its cron with jitter, re-reads the record periodically
 * (a changed schedule or concurrency applies without a restart), buffers results the API could
 * not take and retries them with backoff. stop() lets the running cycle finish.
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

  constructor(private readonly deps: AgentDependencies) {}

  async start(): Promise<void> {
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
    await this.running;
  }

  /** Runs one cycle now (also what `--once` does). */
  async runOnce(options: { neverScannedOnly?: boolean } = {}): Promise<CycleReport | null> {
    if (!this.config) await this.reloadConfig();
    if (!this.config) return null;
    const api = this.deps.client;
    const client = {
      getWork: () => api.getWork({ neverScanned: options.neverScannedOnly ?? false }),
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
    clearTimeout(this.runTimer);
    this.runTimer = setTimeout(() => void this.tick(), Math.max(0, at.getTime() - Date.now()));
    this.deps.log('debug', 'next cycle scheduled', { at: at.toISOString() });
  }

  private async tick(): Promise<void> {
    const report = await this.runOnce();
    // Results left behind are retried with backoff instead of waiting for the next cron slot.
    this.schedule(report === null || report.pending > 0 ? this.backoff.next() : undefined);
    if (report !== null && report.pending === 0) this.backoff.reset();
  }

  /** Probes endpoints that were never observed, unless a cycle is already running. */
  private async scanNewEndpoints(): Promise<void> {
    if (this.running || this.stopped) return;
    await this.runOnce({ neverScannedOnly: true });
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
