import { alertBucket, EXPIRED_THRESHOLD } from './alert-bucket';
import { daysRemaining, isExpired } from './expiry';
import { EVENT_TYPES, type EventType } from './templates/event-types';

/** What the stored facts say about one certificate current on at least one endpoint. */
export interface CertificateFacts {
  fingerprint: string;
  notAfter: Date;
}

/** What every source is evaluated against: the clock and the configured alert thresholds. */
export interface EventContext {
  now: Date;
  thresholds: readonly number[];
}

/**
 * One event a certificate calls for. It is delivered once per (recipient, event type, fingerprint,
 * bucket): a certificate that moves to a new bucket (from 14 days to 7) calls for a new delivery.
 */
export interface DueEvent {
  eventType: EventType;
  bucket: number;
}

/** An event source: the bucket its event is due in for this certificate now, or null when it is not due. */
export type EventSource = (facts: CertificateFacts, context: EventContext) => number | null;

/**
 * Every event type's source (docs/api-contract.md section 6). Keyed by the event-type list, so a
 * new event type does not compile until it has a source here, a default template and its
 * variables; the alert job needs nothing else to deliver it on every channel.
 */
export const EVENT_SOURCES: Readonly<Record<EventType, EventSource>> = Object.freeze({
  cert_expiring: ({ notAfter }, { now, thresholds }) =>
    isExpired(notAfter, now) ? null : (alertBucket(daysRemaining(notAfter, now), false, thresholds)?.threshold ?? null),
  cert_expired: ({ notAfter }, { now }) => (isExpired(notAfter, now) ? EXPIRED_THRESHOLD : null),
});

/** The events the certificate calls for now, in the order of the event-type list. */
export function dueEvents(facts: CertificateFacts, context: EventContext): DueEvent[] {
  const due: DueEvent[] = [];
  for (const eventType of EVENT_TYPES) {
    const bucket = EVENT_SOURCES[eventType](facts, context);
    if (bucket !== null) due.push({ eventType, bucket });
  }
  return due;
}
