const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whole days until `notAfter`, rounded down: 10 hours left is 0, just expired is -1
 * (docs/api-contract.md section 5). `now` is a parameter so callers decide what time it is.
 */
export function daysRemaining(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
}

/** A certificate is expired from the instant of its notAfter on. */
export function isExpired(notAfter: Date, now: Date): boolean {
  return notAfter.getTime() <= now.getTime();
}

/**
 * The instant before which a notAfter counts as expiring within `days` days, expired ones
 * included: daysRemaining(notAfter, now) <= days  <=>  notAfter < the result.
 */
export function expiringWithinBefore(days: number, now: Date): Date {
  return addDays(now, days + 1);
}

/** The instant `days` whole days of 24 h after `instant` (before it when negative). */
export function addDays(instant: Date, days: number): Date {
  return new Date(instant.getTime() + days * DAY_MS);
}
