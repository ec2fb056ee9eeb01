import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  alertTime,
  type Channel,
  daysRemaining,
  type DueEvent,
  dueEvents,
  type EventContext,
  type TemplateValues,
} from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { SMTP_FAILURE_REASONS } from '../mail/smtp-failure';
import { AppMetrics } from '../metrics/app-metrics';
import { SettingsService } from '../settings/settings.service';
import { type AlertRun, AlertsRepository, type ClaimResult, type DeliveryKey } from './alerts.repository';
import { type CandidateCertificate, type FactLoader, mergeCandidates } from './facts/fact-loader';
import { FACT_LOADERS } from './facts/fact-loaders';
import type { Recipient } from './recipient';
import type { NotificationSender, SenderSession } from './senders/notification-sender';
import { SENDERS } from './senders/senders';

/** Why alerts were not sent: an SMTP failure class (smtp-failure.ts), or `internal` when the database or the job failed. */
export const ALERT_FAILURE_REASONS = [...SMTP_FAILURE_REASONS, 'internal'] as const;
export type AlertFailureReason = (typeof ALERT_FAILURE_REASONS)[number];

export interface AlertFailureCount {
  reason: AlertFailureReason;
  /** The relay's reply code (550) when it answered with one. */
  replyCode: number | null;
  count: number;
}

export interface AlertTotals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
  /** The `failed` alerts by why they failed, most frequent first; empty when none failed. */
  failures: AlertFailureCount[];
}

// How long `POST /alerts/run` waits for a run in progress elsewhere before answering 409.
export const ON_DEMAND_MAX_WAIT_MS = 10 * 60 * 1000;
// Users checked per query on a large first run: about 250,000 pending alerts in memory at most.
const USERS_PER_BATCH = 50;

interface Pending {
  key: DeliveryKey;
  recipient: Recipient;
  certificate: CandidateCertificate;
  event: DueEvent;
}

/**
 * The alert job (docs/api-contract.md section 6), the one notification pipeline: the event sources
 * (dueEvents) say which events the current certificates call for, each recipient in scope gets each
 * one that has no outbox row yet, and its channel's sender delivers it exactly once. One replica at
 * a time. A new event type is a new source, a new channel a new sender: never a second job.
 */
@Injectable()
export class AlertsService {
  private readonly logger = new Logger('Alerts');

  constructor(
    private readonly alerts: AlertsRepository,
    @Inject(FACT_LOADERS) private readonly factLoaders: FactLoader[],
    private readonly settings: SettingsService,
    @Inject(SENDERS) private readonly senders: NotificationSender[],
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
  ) {}

  /**
   * Runs the job now, after a run in progress on any replica has finished (the on-demand route).
   * @throws AdvisoryLockWaitExceeded when that run lasts longer than `maxWaitMs`.
   */
  runJob(maxWaitMs = ON_DEMAND_MAX_WAIT_MS): Promise<AlertTotals> {
    return this.alerts.withJobLock(() => this.runAndRecord(), maxWaitMs);
  }

  /** The hourly run: skipped, quietly, while another replica's run is in progress (it does the same work). */
  async runScheduled(): Promise<AlertTotals | null> {
    const totals = await this.alerts.withJobLockIfIdle(() => this.runAndRecord());
    if (totals === null) this.logger.debug('Another replica is running the alert job; this hourly run is skipped.');
    return totals;
  }

  /** The latest run on any replica, or null before the first one (the dashboard's alerting block). */
  lastRun(): Promise<AlertRun | null> {
    return this.alerts.lastRun();
  }

  /** One run, its result kept in the database (under the job lock) so every replica reads the same one after a restart. */
  private async runAndRecord(): Promise<AlertTotals> {
    const ranAt = this.clock.now();
    const totals = await this.deliverDueAlerts();
    await this.alerts.recordRun({ ranAt, alertsSent: totals.alertsSent, alreadySent: totals.alreadySent, failed: totals.failed });
    return totals;
  }

  private async deliverDueAlerts(): Promise<AlertTotals> {
    const totals: AlertTotals = { alertsSent: 0, alreadySent: 0, failed: 0, failures: [] };
    const sessions = await this.openSessions();
    if (sessions.size === 0) return totals;
    const failures = new FailureTally();
    // Nothing aborts a run today (each SMTP step has its own deadline); senders honour the signal so a run deadline needs no change in them.
    const { signal } = new AbortController();
    try {
      for await (const batch of this.dueAlerts((recipient) => sessions.has(recipient.channel))) {
        totals.alreadySent += batch.alreadySent;
        for (const alert of batch.pending) {
          const { sender, session } = sessions.get(alert.recipient.channel)!;
          const values = { ...templateValues(alert.certificate, this.clock.now()), ...alert.event.values };
          const notification = { ...alert.key, recipient: alert.recipient, values };
          const result = await this.alerts.claimAndSend(alert.key, alert.recipient.userId, this.clock.now(), () =>
            session.send(notification, { signal }),
          );
          this.metrics.recordAlertOutcome(result.outcome);
          if (result.outcome === 'sent') totals.alertsSent += 1;
          else if (result.outcome === 'already-sent') totals.alreadySent += 1;
          else {
            totals.failed += 1;
            failures.add(this.reportFailure(sender, alert, result));
          }
        }
      }
    } finally {
      for (const { session } of sessions.values()) session.close();
    }
    totals.failures = failures.counts();
    this.logger.log('alert job finished', {
      alerts_sent: totals.alertsSent,
      already_sent: totals.alreadySent,
      failed: totals.failed,
      failures: totals.failures,
    });
    return totals;
  }

  /** This run's session of every channel that is switched on, by channel. */
  private async openSessions(): Promise<Map<Channel, { sender: NotificationSender; session: SenderSession }>> {
    const sessions = new Map<Channel, { sender: NotificationSender; session: SenderSession }>();
    for (const sender of this.senders) {
      const session = await sender.open();
      if (session) sessions.set(sender.channel, { sender, session });
    }
    return sessions;
  }

  /**
   * One warning line per delivery the receiver did not take, naming the user by id (as the other
   * log lines do, not by address) and the failure class, never the receiver's text; the next run
   * retries it.
   */
  private reportFailure(
    sender: NotificationSender,
    alert: Pending,
    result: Extract<ClaimResult, { outcome: 'failed' }>,
  ): { reason: AlertFailureReason; replyCode: number | null } {
    const fields = { user_id: alert.recipient.userId, fingerprint: alert.key.fingerprint, threshold: alert.key.bucket };
    const what = `${sender.deliveryNoun} to user ${alert.recipient.userId} not sent, retried on the next run`;
    if ('failure' in result) {
      const { reason, replyCode, description } = result.failure;
      this.logger.warn(`${what}: ${description}`, { ...fields, reason, reply_code: replyCode });
      return { reason, replyCode };
    }
    const message = result.cause instanceof Error ? result.cause.message : String(result.cause);
    this.logger.error(`${what}: ${message}`, { ...fields, reason: 'internal' });
    return { reason: 'internal', replyCode: null };
  }

  /** How many alerts are due and how many of those were delivered before, without sending. */
  async countDueAlerts(): Promise<{ pending: number; alreadySent: number }> {
    const counts = { pending: 0, alreadySent: 0 };
    for await (const batch of this.dueAlerts()) {
      counts.pending += batch.pending.length;
      counts.alreadySent += batch.alreadySent;
    }
    return counts;
  }

  /**
   * The due deliveries without an outbox row, in batches small enough to keep memory flat on a
   * first run over a large fleet. Recipients are grouped by their scope, so each distinct scope is
   * queried once whatever the number of recipients sharing it, and checked in chunks of recipients.
   */
  private async *dueAlerts(
    served: (recipient: Recipient) => boolean = () => true,
  ): AsyncGenerator<{ pending: Pending[]; alreadySent: number }> {
    const [thresholds, policy] = await Promise.all([this.settings.alertThresholds(), this.settings.alertPolicy()]);
    const context: EventContext = { now: this.clock.now(), thresholds, policy };
    for (const group of groupByScope((await this.alerts.recipients()).filter(served))) {
      const candidates = mergeCandidates(await Promise.all(this.factLoaders.map((loader) => loader.load(group.tags, context))));
      const due = candidates.flatMap((certificate) => dueEvents(certificate, context).map((event) => ({ certificate, event })));
      if (due.length === 0) continue;
      const byKey = new Map(due.map((d) => [eventKey(d.certificate.fingerprint, d.event), d]));
      const events = due.map((d) => ({ eventType: d.event.eventType, fingerprint: d.certificate.fingerprint, bucket: d.event.bucket }));
      for (let start = 0; start < group.recipients.length; start += USERS_PER_BATCH) {
        const recipients = group.recipients.slice(start, start + USERS_PER_BATCH);
        const byRecipient = new Map(recipients.map((r) => [r.key, r]));
        const undelivered = await this.alerts.undelivered(
          recipients.map((r) => r.key),
          events,
        );
        const pending = undelivered.map((key) => ({
          key,
          recipient: byRecipient.get(key.recipient)!,
          ...byKey.get(eventKey(key.fingerprint, key))!,
        }));
        yield { pending, alreadySent: recipients.length * due.length - pending.length };
      }
    }
  }
}

function eventKey(fingerprint: string, event: Pick<DueEvent, 'eventType' | 'bucket'>): string {
  return `${fingerprint}/${event.eventType}/${event.bucket}`;
}

/** One alert names every endpoint the certificate is current on (docs/api-contract.md section 6). */
export function templateValues(certificate: CandidateCertificate, now: Date): TemplateValues {
  return {
    EndpointName: certificate.endpoints.map((e) => e.name).join(', '),
    EndpointType: [...new Set(certificate.endpoints.map((e) => e.type))].join(', '),
    CommonName: certificate.commonName ?? certificate.fingerprint.slice(0, 16),
    NotAfter: alertTime(certificate.notAfter),
    DaysRemaining: String(daysRemaining(certificate.notAfter, now)),
    Fingerprint: certificate.fingerprint,
  };
}

/** Counts failures by reason and reply code, in the order a run's result lists them. */
class FailureTally {
  private readonly byKey = new Map<string, AlertFailureCount>();

  add(failure: { reason: AlertFailureReason; replyCode: number | null }): void {
    const key = `${failure.reason}/${failure.replyCode ?? ''}`;
    const counted = this.byKey.get(key) ?? { ...failure, count: 0 };
    counted.count += 1;
    this.byKey.set(key, counted);
  }

  /** Most frequent first; ties by reason, then reply code, so two runs with the same failures read the same. */
  counts(): AlertFailureCount[] {
    return [...this.byKey.values()].sort(
      (a, b) => b.count - a.count || a.reason.localeCompare(b.reason) || (a.replyCode ?? 0) - (b.replyCode ?? 0),
    );
  }
}

function groupByScope(recipients: Recipient[]): { tags: string[]; recipients: Recipient[] }[] {
  const groups = new Map<string, { tags: string[]; recipients: Recipient[] }>();
  for (const recipient of recipients) {
    const tags = [...recipient.tags].sort();
    const key = JSON.stringify(tags);
    const group = groups.get(key) ?? { tags, recipients: [] };
    group.recipients.push(recipient);
    groups.set(key, group);
  }
  return [...groups.values()];
}
