/** Threshold recorded for `cert_expired` alerts: one per (user, certificate). */
export const EXPIRED_THRESHOLD = 0;

export type AlertBucket =
  { eventType: 'cert_expiring'; threshold: number } | { eventType: 'cert_expired'; threshold: typeof EXPIRED_THRESHOLD };

/**
 * Which alert a certificate with `daysRemaining` days left calls for: the most urgent (smallest)
 * threshold it falls within, `cert_expired` once expired, or none while it is further out than
 * every threshold. 12 days with thresholds 30, 14, 7, 1 falls in the 14 bucket; reaching 7 days
 * moves it to the 7 bucket, a new alert.
 */
export function alertBucket(daysRemaining: number, expired: boolean, thresholds: readonly number[]): AlertBucket | null {
  if (expired) return { eventType: 'cert_expired', threshold: EXPIRED_THRESHOLD };
  const within = thresholds.filter((threshold) => daysRemaining <= threshold);
  return within.length === 0 ? null : { eventType: 'cert_expiring', threshold: Math.min(...within) };
}
