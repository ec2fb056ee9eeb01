import { Injectable } from '@nestjs/common';
import { DatabaseNotifications } from '../../database/notifications';

/** The channel migration 1796603600000 notifies when the settings table changes. */
export const SETTINGS_CHANNEL = 'certkeeper_settings';

/**
 * The settings documents (alert policy, thresholds, mail, ACME CAs, OIDC), read by every alert run,
 * findings recomputation and dashboard, answered from memory until a write could change them
 * (docs/decisions/0024-database-access.md, "Caches"):
 * - a write anywhere (another replica, psql) notifies every process at its commit, which forgets
 *   them all within milliseconds;
 * - a write through this process forgets them as it commits (SettingsRepository.write), and a
 *   request that may have written forgets them before its response goes out (ForgetAfterWrites);
 * - while the listening connection is down nothing is kept, and a read in flight when a
 *   notification arrives is answered but not kept.
 * Each read gets its own copy: a caller that changes what it got changes nothing here.
 */
@Injectable()
export class SettingsCache {
  private readonly values = new Map<string, unknown>();
  /** Moves on every forget, so a read that straddles one is not kept. */
  private generation = 0;

  constructor(private readonly notifications: DatabaseNotifications) {
    notifications.subscribe(SETTINGS_CHANNEL, { notified: () => this.forget(), resync: () => this.forget() });
    notifications.forgetAfterWrites(() => this.forget());
  }

  /** The setting `key` (null when none is stored), from memory or else from `load`. */
  async read<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    if (this.values.has(key) && this.notifications.listening) return structuredClone(this.values.get(key) as T | null);
    const generation = this.generation;
    const value = await load();
    if (this.notifications.listening && generation === this.generation) this.values.set(key, structuredClone(value));
    return value;
  }

  forget(): void {
    this.generation += 1;
    this.values.clear();
  }
}
