import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { DatabaseNotifications } from '../../database/notifications';
import { SCAN_WORK_CHANNEL } from '../endpoints/scan-work-channel';

/** Long-polls one scanner may hold at once on this process; more are answered at once, unheld. */
export const MAX_WAITS_PER_SCANNER = 4;
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
 * The wake-up side of scan now (docs/decisions/0012-scan-now.md): the process's listening
 * connection (DatabaseNotifications) hears SCAN_WORK_CHANNEL, so a NOTIFY committed on any replica
 * (an endpoint created, a scan requested) wakes the long-polls this process holds. When that
 * connection was down and listens again, every waiter looks again, since notifications sent
 * meanwhile are lost.
 */
@Injectable()
export class ScanWorkSignal implements BeforeApplicationShutdown {
  private readonly watchers = new Set<Watcher>();
  private closing = false;

  constructor(private readonly notifications: DatabaseNotifications) {
    notifications.subscribe(SCAN_WORK_CHANNEL, {
      notified: (payload) => this.notified(payload),
      // Anything sent while nobody listened is unknown: every waiter looks again.
      resync: () => this.watchers.forEach((watcher) => this.poke(watcher)),
    });
  }

  /**
   * Answers every held poll before the HTTP server closes: closing waits for requests in flight,
   * and would otherwise wait out their deadlines.
   */
  beforeApplicationShutdown(): void {
    this.closing = true;
    for (const watcher of this.watchers) watcher.wake?.('closing');
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
        const heard = this.notifications.listening;
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
}
