import { nextCronTime } from '@certkeeper/domain';
import type { ScannerConfig, ScanResult, SweepWorkItem, WorkItem } from '@certkeeper/domain/protocol';
import { ApiError, type ScannerApiClient } from './api-client';
import { Backoff } from './backoff';
import { runCycle, type CycleReport } from './cycle';
import type { SweepRunner } from './discovery/sweep-runner';
import type { Log } from './log';
import { ResultBuffer } from './result-buffer';

export const CONFIG_RELOAD_MS = 5 * 60_000;
/**
 * How long one long-poll for due work (new endpoints, requested scans) is held by the API: work
 * arriving meanwhile is answered at once, so this bounds only how often an idle agent asks
 * (docs/decisions/0012-scan-now.md). Below MAX_WORK_WAIT_SECONDS, so a proxy's idle timeout is not hit first.
 */
export const DEFAULT_NEW_WORK_POLL_MS = 25_000;
const MAX_NEW_WORK_WAIT_MS = 25_000;
/** Polls start at least this far apart (or the wait, when shorter), whatever the API answers. */
const MIN_POLL_GAP_MS = 1000;
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

/** What `--once` did: its cycle, and the sweeps its work listing named. */
export interface OnceReport {
  /** null when the API could not be reached or the cycle failed. */
  cycle: CycleReport | null;
  /** Sweeps the API did not hear the end of: their claim or a report could not be delivered. */
  sweepsUndelivered: number;
}

export interface AgentDependencies {
  client: Pick<ScannerApiClient, 'getConfig' | 'getWork' | 'postResults'>;
  probe: (item: WorkItem) => Promise<ScanResult>;
  /** Runs the discovery sweeps each work listing names, beside the scan cycles (after the cycle with `--once`). */
  sweeps?: Pick<SweepRunner, 'offer' | 'runAll' | 'stop'>;
  log: Log;
  random?: () => number;
  /** The long-poll's wait for due work, at most 25 s; also how often sweeps are looked for while a due cycle runs. */
  newWorkPollMs?: number;
  configReloadMs?: number;
  /** SCANNER_BACK_TO_BACK: each cycle starts as soon as the last one ended, whatever the cron says. */
  backToBack?: boolean;
}

/**
 * The daemon: reads its record, runs on its cron with jitter, re-reads the record periodically
 * (a changed schedule or concurrency applies without a restart), buffers results the API could
 * not take and retries them with backoff. Beside the cron, a loop of long-polls asks for the work
 * due now (endpoints never scanned, scans requested with `POST /endpoints/{id}/scan`) and scans it
 * in a small cycle of its own as soon as the API answers. Every work listing's queued sweeps go to
 * the sweep runner, which runs them alongside the cycles. stop() abandons the held poll, lets the
 * running cycles finish and stops the running sweep after its probes in flight.
 */
export class Agent {
  private config: ScannerConfig | null = null;
  private readonly buffer = new ResultBuffer();
  /** The due cycles' own: a cron cycle's half-full batch must not read as results left behind. */
  private readonly dueBuffer = new ResultBuffer();
  private readonly backoff = new Backoff();
  private readonly dueBackoff = new Backoff();
  private runTimer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private running: Promise<CycleReport | null> | null = null;
  private dueLoop: Promise<void> | null = null;
  private dueCycle: Promise<void> | null = null;
  /** Before the next long-poll: a backoff after a failed poll, or a due cycle that left results behind. */
  private dueDelayMs = 0;
  private readonly stopping = new AbortController();
  private stopped = false;
  /**
   * Work listings offer their sweeps to the runner only in the daemon started by start(): a cycle
   * run alone (runOnce) leaves them queued, and `--once` runs them itself after its cycle
   * (runOnceThenSweeps).
   */
  private daemon = false;

  constructor(private readonly deps: AgentDependencies) {}

  async start(): Promise<void> {
    this.daemon = true;
    await this.reloadConfig();
    this.reloadTimer = setInterval(() => void this.reloadConfig(), this.deps.configReloadMs ?? CONFIG_RELOAD_MS);
    this.schedule();
    // In the background: stop() ends it and waits for it like for any running cycle.
    this.dueLoop = this.pollDueWork();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.runTimer);
    clearInterval(this.reloadTimer);
    this.stopping.abort();
    await Promise.all([this.running, this.dueLoop, this.deps.sweeps?.stop()]);
  }

  /** Runs one cycle now; in the daemon, the sweeps its work listing names go to the sweep runner. */
  runOnce(options: { neverScannedOnly?: boolean } = {}): Promise<CycleReport | null> {
    return this.runCycleNow(options, (sweeps) => this.offerSweeps(sweeps));
  }

  /**
   * What `--once` does (docs/api-contract.md section 7): one cycle, then every sweep queued for
   * this scanner as the cycle's work listing named them, oldest first, each to its final report,
   * so that an agent run from cron sweeps too. No sweep runs when the cycle failed: the API was
   * not reachable, or not for long.
   */
  async runOnceThenSweeps(): Promise<OnceReport> {
    let queued: SweepWorkItem[] = [];
    const cycle = await this.runCycleNow({}, (sweeps) => (queued = sweeps));
    if (cycle === null || queued.length === 0 || !this.deps.sweeps || !this.config) return { cycle, sweepsUndelivered: 0 };
    return { cycle, sweepsUndelivered: await this.deps.sweeps.runAll(queued, this.config.scanConcurrency) };
  }

  private async runCycleNow(
    options: { neverScannedOnly?: boolean },
    listedSweeps: (sweeps: SweepWorkItem[]) => void,
  ): Promise<CycleReport | null> {
    if (!this.config) await this.reloadConfig();
    if (!this.config) return null;
    const api = this.deps.client;
    const client = {
      getWork: () =>
        api.getWork({ neverScanned: options.neverScannedOnly ?? false }).then((work) => {
          listedSweeps(work.sweeps);
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
    return this.buffer.size + this.dueBuffer.size;
  }

  private schedule(backoffMs?: number): void {
    if (this.stopped || !this.config) return;
    // Back to back, the next cycle starts at once, unless results left behind ask for a backoff.
    const delayMs = backoffMs ?? (this.deps.backToBack ? 0 : undefined);
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
   * The loop of long-polls for due work. While a due cycle runs its items would come straight
   * back (not yet ingested), so the loop then only looks for queued sweeps, once per wait, and
   * long-polls again when the cycle is over. Failures back off with Backoff.
   */
  private async pollDueWork(): Promise<void> {
    const waitMs = Math.min(this.deps.newWorkPollMs ?? DEFAULT_NEW_WORK_POLL_MS, MAX_NEW_WORK_WAIT_MS);
    const gapMs = Math.min(waitMs, MIN_POLL_GAP_MS);
    while (!this.stopped) {
      if (this.dueCycle) {
        await Promise.race([this.dueCycle, this.pause(waitMs)]);
        if (this.dueCycleRunning()) await this.lookForSweeps();
        continue;
      }
      if (this.dueDelayMs > 0) {
        await this.pause(this.dueDelayMs);
        this.dueDelayMs = 0;
        continue;
      }
      const started = Date.now();
      try {
        const work = await this.deps.client.getWork({ neverScanned: true, waitSeconds: waitMs / 1000, signal: this.stopping.signal });
        this.offerSweeps(work.sweeps);
        // Results kept from a failed post go too, even when nothing is due any more (the endpoint deleted meanwhile).
        if ((work.items.length > 0 || this.dueBuffer.size > 0) && !this.stopped)
          this.dueCycle = this.runDueCycle(work.items).finally(() => (this.dueCycle = null));
        else this.dueBackoff.reset();
      } catch (error) {
        if (this.stopped) break;
        this.dueDelayMs = this.dueBackoff.next();
        const fatal = error instanceof ApiError && !error.transient;
        this.deps.log(fatal ? 'error' : 'warn', `could not look for due work: ${error instanceof Error ? error.message : String(error)}`, {
          retryInMs: this.dueDelayMs,
        });
      }
      // An API that answers at once (an old one, a proxy) must not turn the loop into a busy one.
      await this.pause(started + gapMs - Date.now());
    }
    await this.dueCycle;
  }

  // A method, not the field, so the check after an await is not narrowed away by the compiler.
  private dueCycleRunning(): boolean {
    return this.dueCycle !== null;
  }

  /** Scans the due items now with the configured concurrency; results left behind back off the next poll. */
  private async runDueCycle(items: WorkItem[]): Promise<void> {
    if (!this.config) await this.reloadConfig();
    if (!this.config) {
      this.dueDelayMs = this.dueBackoff.next();
      return;
    }
    const api = this.deps.client;
    try {
      const report = await runCycle({
        probe: this.deps.probe,
        log: this.deps.log,
        client: { getWork: () => Promise.resolve(items), postResults: (results: ScanResult[]) => api.postResults(results) },
        buffer: this.dueBuffer,
        concurrency: this.config.scanConcurrency,
      });
      this.deps.log('info', 'due work scanned', { ...report });
      // A result the API refused leaves its request pending: asking again at once would loop.
      if (report.pending > 0 || report.rejected > 0) this.dueDelayMs = this.dueBackoff.next();
      else this.dueBackoff.reset();
    } catch (error) {
      this.dueDelayMs = this.dueBackoff.next();
      this.deps.log('error', `due cycle failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** While a due cycle runs: the queued sweeps only, without holding, so a sweep still starts within one wait. */
  private async lookForSweeps(): Promise<void> {
    if (!this.deps.sweeps || this.stopped) return;
    try {
      this.offerSweeps((await this.deps.client.getWork({ neverScanned: true, signal: this.stopping.signal })).sweeps);
    } catch (error) {
      if (!this.stopped) {
        this.deps.log('warn', `could not look for queued sweeps: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** Sleeps, cut short by stop(). */
  private pause(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    const signal = this.stopping.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        // Removed every time: the loop pauses for months on one signal.
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
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
