import { Injectable } from '@nestjs/common';
import { DatabaseNotifications } from '../../database/notifications';
import type { SessionUser } from './sessions.repository';

/** The channel migration 1795323600000 notifies when a session ends or a user changes. */
export const SIGN_IN_CHANNEL = 'certkeeper_sign_in';
/** How long a session check is answered from memory, at most (a notification ends it sooner). */
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

/**
 * The session check every authenticated request makes (is the session alive, is its user enabled,
 * with which role), answered from memory for a few seconds (docs/performance.md, "Sessions").
 * Revocation stays immediate in practice:
 * - a session ending or a user changing anywhere (another replica, psql) notifies every process,
 *   which forgets everything it cached, within milliseconds of the commit;
 * - a request that changed something on this process forgets before its response is sent
 *   (ForgetAfterWrites), so its own client never sees the old state;
 * - while the listening connection is down nothing is cached, and a check that was in flight when
 *   a notification arrived is not kept.
 */
@Injectable()
export class SessionUserCache {
  private readonly entries = new Map<string, { user: SessionUser | null; until: number }>();
  /** Moves on every forget, so a look-up that straddles one is not kept. */
  private generation = 0;

  constructor(private readonly notifications: DatabaseNotifications) {
    notifications.subscribe(SIGN_IN_CHANNEL, { notified: () => this.forget(), resync: () => this.forget() });
    notifications.forgetAfterWrites(() => this.forget());
  }

  async lookup(sessionId: string, userId: string, load: () => Promise<SessionUser | null>): Promise<SessionUser | null> {
    const key = `${sessionId}/${userId}`;
    const now = performance.now();
    const cached = this.entries.get(key);
    if (cached && cached.until > now && this.notifications.listening) return cached.user;

    const generation = this.generation;
    const user = await load();
    if (this.notifications.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { user, until: now + TTL_MS });
    }
    return user;
  }

  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
