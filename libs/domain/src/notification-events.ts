import { alertBucket, EXPIRED_THRESHOLD } from './alert-bucket';
import type { AlertPolicy } from './alert-policy';
import { daysRemaining, isExpired } from './expiry';
import { lifetimeDays, lifetimeThresholds } from './lifetime-thresholds';
import type { RenewalWindow } from './renewal-info';
import { type RenewalFacts, renewalNotDeployedSource, rotationRegressionSource } from './renewals/renewal-events';
import { EVENT_TYPES, type EventType, type TemplateValues } from './templates/event-types';

/**
 * What the stored facts say about one certificate current on at least one endpoint. The expiry
 * facts are always there; each further event family adds the optional facts its source reads,
 * present when the certificate has them (the API's fact loaders fill them in).
 */
export interface CertificateFacts extends RenewalFacts {
  fingerprint: string;
  notAfter: Date;
  /** Lifetime-aware thresholds read it (docs/api-contract.md section 15); without it the plain thresholds apply. */
  notBefore?: Date;
  /** The CA's suggested renewal window (RFC 9773), when one was fetched. */
  renewalWindow?: RenewalWindow;
  /** Revocation (docs/api-contract.md section 18): the latest check found it revoked. */
  revocation?: { status: 'good' | 'revoked' | 'unknown'; revokedAt: Date | null; reason: string | null };
}

/** What every source is evaluated against: the clock, the configured alert thresholds and the alert policy. */
export interface EventContext {
  now: Date;
  thresholds: readonly number[];
  policy: AlertPolicy;
}

/** A source's answer when its event is due: the bucket, and the values only this event's templates use. */
export interface SourceHit {
  bucket: number;
  values?: TemplateValues;
}

/**
 * One event a certificate calls for. It is delivered once per (recipient, event type, fingerprint,
 * bucket): a certificate that moves to a new bucket (from 14 days to 7) calls for a new delivery;
 * an event said once per certificate keeps one bucket.
 */
export interface DueEvent extends SourceHit {
  eventType: EventType;
}

/** An event source: whether its event is due for this certificate now, or null when it is not. */
export type EventSource = (facts: CertificateFacts, context: EventContext) => SourceHit | null;

/**
 * Every event type's source (docs/api-contract.md section 6). Keyed by the event-type list, so a
 * new event type does not compile until it has a source here, a default template and its
 * variables; the alert job needs nothing else to deliver it on every channel, beyond a fact loader
 * when the facts it reads are new.
 */
export const EVENT_SOURCES: Readonly<Record<EventType, EventSource>> = Object.freeze({
  cert_expiring: ({ notAfter, notBefore }, { now, thresholds, policy }) => {
    if (isExpired(notAfter, now)) return null;
    const applying =
      policy.lifetimeAware && notBefore
        ? lifetimeThresholds(thresholds, lifetimeDays(notBefore, notAfter), policy.lifetimeFraction)
        : thresholds;
    const bucket = alertBucket(daysRemaining(notAfter, now), false, applying);
    return bucket ? { bucket: bucket.threshold } : null;
  },
  cert_expired: ({ notAfter }, { now }) => (isExpired(notAfter, now) ? { bucket: EXPIRED_THRESHOLD } : null),

  // Once per (recipient, fingerprint): a window a CA moves again after it ended is not news.
  renewal_overdue: ({ renewalWindow }, { now, policy }) => {
    if (!policy.renewalInfo || !renewalWindow || renewalWindow.end.getTime() > now.getTime()) return null;
    return {
      bucket: 0,
      values: {
        WindowStart: alertTime(renewalWindow.start),
        WindowEnd: alertTime(renewalWindow.end),
        ExplanationURL: renewalWindow.explanationUrl ?? '',
      },
    };
  },
  // Rotations and renewals never deployed (docs/api-contract.md section 16).
  rotation_regression: rotationRegressionSource,
  renewal_not_deployed: renewalNotDeployedSource,
  // Once per (recipient, fingerprint): one bucket, whatever the certificate's dates (docs/api-contract.md section 18).
  cert_revoked: ({ revocation }) =>
    revocation?.status === 'revoked'
      ? {
          bucket: 0,
          values: {
            RevokedAt: revocation.revokedAt ? alertTime(revocation.revokedAt) : 'unknown',
            Reason: revocation.reason ?? 'not given',
          },
        }
      : null,
});

/** How notifications write an instant: `2026-12-01 14:30 UTC`. */
export function alertTime(instant: Date): string {
  return `${instant.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The events the certificate calls for now, in the order of the event-type list. */
export function dueEvents(facts: CertificateFacts, context: EventContext): DueEvent[] {
  const due: DueEvent[] = [];
  for (const eventType of EVENT_TYPES) {
    const hit = EVENT_SOURCES[eventType](facts, context);
    if (hit !== null) due.push({ eventType, ...hit });
  }
  return due;
}
