const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The latest daily slot at or before `now`: today at `hour`:00 UTC once that has come, else yesterday's. */
export function latestDigestSlot(hour: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + hour * HOUR_MS;
  return new Date(today <= now.getTime() ? today : today - DAY_MS);
}

/**
 * Whether a daily channel's digest goes out on this run (docs/api-contract.md section 17): at the
 * first run in or after its hour each day, that is when no digest went out since the latest slot.
 * `since` is the last digest sent, or the channel's creation before the first: a channel created
 * after today's hour sends its first digest at tomorrow's.
 */
export function digestDue(hour: number, since: Date, now: Date): boolean {
  return since.getTime() < latestDigestSlot(hour, now).getTime();
}
