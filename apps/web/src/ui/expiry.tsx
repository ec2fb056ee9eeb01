import type { JSX } from 'react';
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

/** What each level says besides its colour, for people who do not see the colour (and screen readers). */
const LEVEL_NAMES: Record<ExpiryLevel, string> = {
  expired: 'Expired',
  critical: 'Critical',
  warning: 'Warning',
  notice: 'Expires soon',
  ok: 'Fine',
};

/**
 * A shape per level, beside the text: a cross for expired, a triangle for critical and warning
 * (critical filled), a clock for soon, a tick for fine. Decorative: the text says it all.
 */
export function UrgencyIcon({ level }: { level: ExpiryLevel }) {
  const shapes: Record<ExpiryLevel, JSX.Element> = {
    expired: (
      <>
        <circle cx="8" cy="8" r="7" fill="currentColor" />
        <path d="M5.2 5.2l5.6 5.6M10.8 5.2l-5.6 5.6" stroke="var(--urgency-icon-on)" strokeWidth="1.8" />
      </>
    ),
    critical: (
      <>
        <path d="M8 1.2L15.2 14.5H0.8z" fill="currentColor" />
        <path d="M8 5.5v4.2M8 11.2v1.6" stroke="var(--urgency-icon-on)" strokeWidth="1.8" />
      </>
    ),
    warning: (
      <>
        <path d="M8 1.8L14.6 14H1.4z" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
        <path d="M8 6v3.8M8 11.1v1.5" stroke="currentColor" strokeWidth="1.6" />
      </>
    ),
    notice: (
      <>
        <circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <path d="M8 4v4.3l2.8 1.7" fill="none" stroke="currentColor" strokeWidth="1.5" />
      </>
    ),
    ok: <path d="M2.5 8.5l3.5 3.5 7.5-8" fill="none" stroke="currentColor" strokeWidth="2" />,
  };
  return (
    <svg className="urgency-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      {shapes[level]}
    </svg>
  );
}

/**
 * Days remaining by the configured thresholds: a colour, a shape and the level's name (in the
 * hover text and for screen readers), so the level reads without the colour. `notAfter` decides
 * "expired" exactly (notAfter <= now).
 */
export function DaysRemaining({ daysRemaining, notAfter }: { daysRemaining: number; notAfter: string }) {
  const thresholds = useThresholds();
  const expired = Date.parse(notAfter) <= Date.now();
  const level = expiryLevel(daysRemaining, thresholds, expired);
  const text = expired
    ? `expired ${Math.abs(daysRemaining)} ${Math.abs(daysRemaining) === 1 ? 'day' : 'days'} ago`
    : `${daysRemaining} ${daysRemaining === 1 ? 'day' : 'days'}`;
  return (
    <span className={`urgency urgency-${level}`} title={`${LEVEL_NAMES[level]}: expires ${new Date(notAfter).toISOString()}`}>
      <UrgencyIcon level={level} />
      {level !== 'expired' && level !== 'ok' && <span className="visually-hidden">{LEVEL_NAMES[level]}: </span>}
      <span>{text}</span>
    </span>
  );
}
