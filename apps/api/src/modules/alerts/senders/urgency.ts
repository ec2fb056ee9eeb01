import type { Notification } from './notification-sender';

/** Events that need someone now, whatever the days: the certificate is unusable already. */
const UNUSABLE = new Set<string>(['cert_expired', 'cert_revoked']);
const SOON_DAYS = 7;

/**
 * How urgent a notification is, on ntfy's scale (docs/api-contract.md section 17): 5 for an
 * expired or revoked certificate, 4 at 7 days or fewer, 3 otherwise. PagerDuty's severity follows it.
 */
export function urgencyOf(notification: Pick<Notification, 'eventType' | 'values'>): 3 | 4 | 5 {
  if (UNUSABLE.has(notification.eventType)) return 5;
  const days = Number(notification.values.DaysRemaining);
  return Number.isFinite(days) && days <= SOON_DAYS ? 4 : 3;
}
