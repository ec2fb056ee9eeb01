import type { Channel, EventType, TemplateValues } from '@certkeeper/domain/templates';
import type { SqlQuery } from '../../../database/row-stream';
import type { SmtpFailureReason } from '../../mail/smtp-failure';
import type { CandidateCertificate } from '../facts/fact-loader';
import type { Recipient } from '../recipient';

/**
 * One delivery to send: to whom, which event about which certificate in which bucket, the
 * template's values, and the certificate with the endpoints in the recipient's scope.
 */
export interface Notification {
  recipient: Recipient;
  eventType: EventType;
  fingerprint: string;
  bucket: number;
  values: TemplateValues;
  /** The values only this event type gives (its source's), which a webhook's data carries beside the certificate. */
  eventValues: TemplateValues;
  certificate: CandidateCertificate;
}

/** Why a receiver did not accept a delivery, as a class and a sentence; never the text the receiver sent. */
export interface DeliveryFailure {
  reason: SmtpFailureReason;
  /** The receiver's reply code (SMTP 550) when it answered with one. */
  replyCode: number | null;
  description: string;
}

export type DeliveryOutcome =
  | {
      status: 'delivered';
      /** What commits with the delivery's claim (a channel's log row), in the claim's transaction: one commit per delivery, not two. */
      record?: SqlQuery;
    }
  | { status: 'failed'; failure: DeliveryFailure };

/** A channel's connection for one run (an SMTP pool); closed when the run ends. */
export interface SenderSession {
  /**
   * Renders and sends one notification. Resolves to `delivered` only once the receiver accepted it,
   * to `failed` when the receiver refused or could not be reached; throws only for a failure of our
   * own (the database), which the job counts as `internal`. An aborted `signal` sends nothing.
   */
  send(notification: Notification, options: { signal: AbortSignal }): Promise<DeliveryOutcome>;
  /**
   * A daily channel's digest (docs/api-contract.md section 17): the notifications one recipient
   * gathered, as one message. Resolves like `send`; only the chat channels have it.
   */
  sendDigest?(notifications: Notification[], options: { signal: AbortSignal }): Promise<DeliveryOutcome>;
  /** Runs once the run's deliveries are done: PagerDuty resolves the incidents whose certificate is gone. */
  finish?(options: { signal: AbortSignal }): Promise<void>;
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
