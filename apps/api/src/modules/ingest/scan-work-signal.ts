import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { SCAN_WORK_CHANNEL } from '../endpoints/scan-work-channel';
import { IngestRepository } from './ingest.repository';

/** Long-polls one scanner may hold at once on this process; more are answered at once, unheld. */
export const MAX_WAITS_PER_SCANNER = 4;
const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 30_000;
/** While the listening connection is down a notification may be missed: waits look again this often. */
const UNHEARD_RECHECK_MS = 2000;

export type WaitOutcome = 'woken' | 'deadline' | 'closing';

/**
 * One long-poll's subscription, opened before its first look at the work so a notification that
 * lands between that look and the wait is not lost: it marks the watch, and next() returns at once.
 */
export interface WorkWatch {
  /** Resolves at the next notification for the scanner (or one already pending), at the timeout, or on shutdown. */
  next(timeoutMs: number): Promise<WaitOutcome>;
  close(): void;
}

interface Watcher {
  scannerId: string;
  /** The default scanner also scans endpoints with no scanner (payload ''). */
  isDefault: boolean;
  pending: boolean;
  wake: ((outcome: WaitOutcome) => void) | null;
}

/**
 * The wake-up side of scan now (docs/decisions/0012-scan-now.md): one dedicated PostgreSQL
 * connection per API process LISTENs on SCAN_WORK_CHANNEL, so a NOTIFY committed on any replica
 * (an endpoint created, a scan requested) wakes the long-polls this process holds. Not one
 * connection per waiting request: the pool stays free for real work. A dropped connection is
 * re-opened with backoff and every waiter looks again, since notifications sent meanwhile are lost.
 */
@Injectable()
export class ScanWorkSignal implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ScanWorkSignal');
  private readonly watchers = new Set<Watcher>();
  private client: Client | null = null;
  private listening = false;
  private closing = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(private readonly ingest: IngestRepository) {}

  onModuleInit(): void {
    void this.connect();
  }

  /**
   * Answers every held poll before the HTTP server closes: closing waits for requests in flight,
   * and would otherwise wait out their deadlines.
   */
  beforeApplicationShutdown(): void {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    for (const watcher of this.watchers) watcher.wake?.('closing');
  }

  async onApplicationShutdown(): Promise<void> {
    this.beforeApplicationShutdown();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /**
   * Watches for work that may be due for `scannerId`; null when the scanner already holds
   * MAX_WAITS_PER_SCANNER watches here (the caller answers without holding).
   */
  watch(scannerId: string, isDefault: boolean): WorkWatch | null {
    let held = 0;
    for (const watcher of this.watchers) if (watcher.scannerId === scannerId) held += 1;
    if (held >= MAX_WAITS_PER_SCANNER) return null;
    const watcher: Watcher = { scannerId, isDefault, pending: false, wake: null };
    this.watchers.add(watcher);
    return {
      next: (timeoutMs) => {
        if (this.closing) return Promise.resolve('closing');
        if (watcher.pending) {
          watcher.pending = false;
          return Promise.resolve('woken');
        }
        // Unheard, a notification could be missed: look again sooner, as if woken.
        const heard = this.listening;
        return new Promise<WaitOutcome>((resolve) => {
          const timer = setTimeout(
            () => watcher.wake?.(heard ? 'deadline' : 'woken'),
            heard ? timeoutMs : Math.min(timeoutMs, UNHEARD_RECHECK_MS),
          );
          watcher.wake = (outcome) => {
            clearTimeout(timer);
            watcher.wake = null;
            watcher.pending = false;
            resolve(outcome);
          };
        });
      },
      close: () => {
        watcher.wake?.('closing');
        this.watchers.delete(watcher);
      },
    };
  }

  private notified(payload: string): void {
    for (const watcher of this.watchers) {
      if (watcher.scannerId === payload || (payload === '' && watcher.isDefault)) this.poke(watcher);
    }
  }

  private poke(watcher: Watcher): void {
    if (watcher.wake) watcher.wake('woken');
    else watcher.pending = true;
  }

  private async connect(): Promise<void> {
    if (this.closing) return;
    const client = new Client({
      connectionString: this.ingest.databaseUrl(),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A silently dead connection (a failover, a cut network) is noticed and re-opened.
      keepAlive: true,
      application_name: 'certkeeper-api-listen',
    });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === SCAN_WORK_CHANNEL) this.notified(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${SCAN_WORK_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    this.listening = true;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
    // Anything sent while nobody listened is unknown: every waiter looks again.
    for (const watcher of this.watchers) this.poke(watcher);
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    if (this.closing) return;
    this.logger.warn(
      `Not listening for scan work (${error instanceof Error ? error.message : 'connection closed'}); ` +
        `retrying in ${Math.round(this.reconnectDelayMs / 1000)} s.`,
    );
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(RECONNECT_MAX_MS, this.reconnectDelayMs * 2);
  }
}
