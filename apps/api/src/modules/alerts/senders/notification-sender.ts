import type { Channel, EventType, TemplateValues } from '@certkeeper/domain/templates';
import type { SmtpFailureReason } from '../../mail/smtp-failure';
import type { Recipient } from '../recipient';

/** One delivery to send: to whom, which event about which certificate in which bucket, and the template's values. */
export interface Notification {
  recipient: Recipient;
  eventType: EventType;
  fingerprint: string;
  bucket: number;
  values: TemplateValues;
}

/** Why a receiver did not accept a delivery, as a class and a sentence; never the text the receiver sent. */
export interface DeliveryFailure {
  reason: SmtpFailureReason;
  /** The receiver's reply code (SMTP 550) when it answered with one. */
  replyCode: number | null;
  description: string;
}

export type DeliveryOutcome = { status: 'delivered' } | { status: 'failed'; failure: DeliveryFailure };

/** A channel's connection for one run (an SMTP pool); closed when the run ends. */
export interface SenderSession {
  /**
   * Renders and sends one notification. Resolves to `delivered` only once the receiver accepted it,
   * to `failed` when the receiver refused or could not be reached; throws only for a failure of our
   * own (the database), which the job counts as `internal`. An aborted `signal` sends nothing.
   */
  send(notification: Notification, options: { signal: AbortSignal }): Promise<DeliveryOutcome>;
  close(): void;
}

/** One sender per channel kind (docs/architecture.md, "Alerts and notifications"). */
export interface NotificationSender {
  readonly channel: Channel;
  /** What a log line calls one delivery on this channel: "Alert e-mail". */
  readonly deliveryNoun: string;
  /** Opens this run's session, or null when the channel is switched off (mail disabled or not configured). */
  open(): Promise<SenderSession | null>;
}
