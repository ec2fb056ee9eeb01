import { useThresholds } from './thresholds';

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** An instant in the viewer's local time, the UTC instant on hover. */
export function DateTime({ value, dateOnly = false }: { value: string | null | undefined; dateOnly?: boolean }) {
  if (!value) return <span className="muted">never</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toISOString()}>
      {(dateOnly ? dateFormat : dateTimeFormat).format(date)}
    </time>
  );
}

export type ExpiryLevel = 'expired' | 'critical' | 'warning' | 'notice' | 'ok';

/**
 * The colour of a days-remaining figure by the configured thresholds (descending): expired, then
 * within the smallest threshold (critical), within the second smallest (warning), within the
 * largest (notice), else fine.
 */
export function expiryLevel(daysRemaining: number, thresholds: number[], expired = daysRemaining < 0): ExpiryLevel {
  if (expired) return 'expired';
  const ascending = [...thresholds].sort((a, b) => a - b);
  if (ascending.length === 0) return 'ok';
  if (daysRemaining <= ascending[0]) return 'critical';
  if (ascending.length > 2 && daysRemaining <= ascending[1]) return 'warning';
  if (daysRemaining <= ascending[ascending.length - 1]) return 'notice';
  return 'ok';
}

/** Days remaining with its colour; `notAfter` decides "expired" exactly (notAfter <= now). */
export function DaysRemaining({ daysRemaining, notAfter }: { daysRemaining: number; notAfter: string }) {
  const thresholds = useThresholds();
  const expired = Date.parse(notAfter) <= Date.now();
  const level = expiryLevel(daysRemaining, thresholds, expired);
  const text = expired
    ? `expired ${Math.abs(daysRemaining)} ${Math.abs(daysRemaining) === 1 ? 'day' : 'days'} ago`
    : `${daysRemaining} ${daysRemaining === 1 ? 'day' : 'days'}`;
  return (
    <span className={`expiry expiry-${level}`} title={`Expires ${new Date(notAfter).toISOString()}`}>
      {text}
    </span>
  );
}
