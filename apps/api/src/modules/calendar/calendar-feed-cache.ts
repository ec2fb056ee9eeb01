import { Injectable } from '@nestjs/common';
import { daysRemaining } from '@certkeeper/domain';
import { DatabaseNotifications } from '../../database/notifications';
import { type ExpiringCertificate, ExpiryRepository } from '../expiry/expiry.repository';
import { feedWindowEnd, type RenderedEvent, renderEvent, writeFeed } from './expiry-calendar';

/** The channel migration 1795402800000 notifies when a write could change what a feed shows. */
export const CALENDAR_CHANNEL = 'certkeeper_calendar';

const DAY_MS = 24 * 60 * 60 * 1000;

// Rows are read this far past the window's end, so they serve while the window moves for a day.
const ROWS_AHEAD_MS = DAY_MS;
/** Certificates remembered across scopes; the least recently used scope is forgotten first. */
const MAX_ROWS = 20_000;
/**
 * Rendered events shared between scopes, in bytes (an event is about 1.1 kB); least recently
 * rendered or looked up first out. A kept scope also holds the events it last served.
 */
const MAX_EVENT_BYTES = 24 * 1024 * 1024;

interface Scope {
  certificates: ExpiringCertificate[];
  /** The event last served for each certificate, so a warm feed looks nothing up. */
  events: (KeptEvent | undefined)[];
  /** Read with the window's end at this instant plus ROWS_AHEAD_MS. */
  readAt: number;
}

interface KeptEvent extends RenderedEvent {
  key: string;
}

/**
 * What makes a feed, kept so a calendar client's hourly poll costs no query and no rendering
 * (docs/performance.md, "Calendar feeds"):
 * - the certificates of each subscription scope, until a write could change them: a write
 *   anywhere (another replica, psql) notifies every process at its commit (migration
 *   1795402800000), a request on this process that may have written forgets them before its
 *   response goes out (ForgetAfterWrites), and nothing is kept while the listening connection is
 *   down; they are read a day past the window and serve until the window reaches that;
 * - each rendered event, by what it shows, until its days remaining change: a write re-renders
 *   only the events it changed. Every feed is stamped with the time it is served.
 * The owner (token, disabled, subscriptions) is read on every request, so nothing here depends on users.
 */
@Injectable()
export class CalendarFeedCache {
  private readonly scopes = new Map<string, Scope>();
  private rowsHeld = 0;
  private readonly events = new Map<string, KeptEvent>();
  private eventBytes = 0;
  /** Moves on every forget, so rows read across one are not kept. */
  private generation = 0;

  constructor(
    private readonly expiry: ExpiryRepository,
    private readonly notifications: DatabaseNotifications,
  ) {
    notifications.subscribe(CALENDAR_CHANNEL, { notified: () => this.forgetRows(), resync: () => this.forgetRows() });
    notifications.forgetAfterWrites(() => this.forgetRows());
  }

  /** The feed of a user with these tag subscriptions at `now`, as UTF-8 bytes. */
  async feed(subscriptions: readonly string[], now: Date): Promise<Buffer> {
    const windowEnd = feedWindowEnd(now).getTime();
    const scope = await this.scopeOf(subscriptions, now);
    const events: RenderedEvent[] = [];
    scope.certificates.forEach((certificate, index) => {
      if (certificate.notAfter.getTime() >= windowEnd) return;
      const served = scope.events[index];
      if (served && served.daysRemaining === daysRemaining(certificate.notAfter, now)) {
        events.push(served);
      } else {
        events.push((scope.events[index] = this.eventOf(certificate, now)));
      }
    });
    return writeFeed(events, now);
  }

  private async scopeOf(subscriptions: readonly string[], now: Date): Promise<Scope> {
    // Scopes are sets: the same tags in any order, or repeated, are one scope.
    const key = JSON.stringify([...new Set(subscriptions)].sort());
    const kept = this.scopes.get(key);
    if (kept && this.notifications.listening && now.getTime() - kept.readAt <= ROWS_AHEAD_MS) {
      this.keepScope(key, kept);
      return kept;
    }
    const generation = this.generation;
    const certificates = await this.expiry.findCurrentExpiringBefore(new Date(feedWindowEnd(now).getTime() + ROWS_AHEAD_MS), subscriptions);
    const scope = { certificates, events: [], readAt: now.getTime() };
    if (this.notifications.listening && this.generation === generation) this.keepScope(key, scope);
    return scope;
  }

  /** The kept rendering of what `certificate` shows now, shared by every scope; rendered when there is none. */
  private eventOf(certificate: ExpiringCertificate, now: Date): KeptEvent {
    const key = JSON.stringify([certificate.fingerprint, certificate.commonName, certificate.notAfter.getTime(), certificate.endpoints]);
    const kept = this.events.get(key);
    if (kept && kept.daysRemaining === daysRemaining(certificate.notAfter, now)) {
      this.keepEvent(kept);
      return kept;
    }
    const event = { ...renderEvent(certificate, now), key };
    this.keepEvent(event);
    return event;
  }

  private forgetRows(): void {
    this.generation += 1;
    this.scopes.clear();
    this.rowsHeld = 0;
  }

  // A Map keeps insertion order: re-inserting makes the entry the most recent.
  private keepScope(key: string, scope: Scope): void {
    this.forgetScope(key);
    this.scopes.set(key, scope);
    this.rowsHeld += scope.certificates.length;
    for (const oldest of this.scopes.keys()) {
      if (this.rowsHeld <= MAX_ROWS || oldest === key) break;
      this.forgetScope(oldest);
    }
  }

  private forgetScope(key: string): void {
    const scope = this.scopes.get(key);
    if (!scope) return;
    this.scopes.delete(key);
    this.rowsHeld -= scope.certificates.length;
  }

  private keepEvent(event: KeptEvent): void {
    const previous = this.events.get(event.key);
    if (previous) {
      this.events.delete(event.key);
      this.eventBytes -= previous.bytes.length;
    }
    this.events.set(event.key, event);
    this.eventBytes += event.bytes.length;
    for (const [oldest, kept] of this.events) {
      if (this.eventBytes <= MAX_EVENT_BYTES) break;
      this.events.delete(oldest);
      this.eventBytes -= kept.bytes.length;
    }
  }
}
