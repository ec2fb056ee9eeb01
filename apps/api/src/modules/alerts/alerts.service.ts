import { Injectable, Logger } from '@nestjs/common';
import { alertBucket, type AlertBucket, daysRemaining, expiringWithinBefore, isExpired, type TemplateValues } from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { type ExpiringCertificate, ExpiryRepository } from '../expiry/expiry.repository';
import { Mailer, type MailSession, SmtpDeliveryError } from '../mail/mailer';
import { SMTP_FAILURE_REASONS } from '../mail/smtp-failure';
import { AppMetrics } from '../metrics/app-metrics';
import { SettingsService } from '../settings/settings.service';
import { TemplatesService } from '../templates/templates.service';
import { alertMessageId } from './alert-message-id';
import { type AlertKey, type AlertRun, AlertsRepository, type Recipient } from './alerts.repository';

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
  key: AlertKey;
  email: string;
  certificate: ExpiringCertificate;
  bucket: AlertBucket;
}

/**
 * The alert job (docs/api-contract.md section 6): decide which (user, certificate, threshold) alerts
 * are due and not yet delivered, then deliver each exactly once. One replica at a time.
 */
@Injectable()
export class AlertsService {
  private readonly logger = new Logger('Alerts');

  constructor(
    private readonly alerts: AlertsRepository,
    private readonly expiry: ExpiryRepository,
    private readonly settings: SettingsService,
    private readonly templates: TemplatesService,
    private readonly mailer: Mailer,
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
    const smtp = await this.settings.smtpSettings();
    if (!smtp) {
      this.logger.log('Mail is disabled or not configured; no alerts sent.');
      return { alertsSent: 0, alreadySent: 0, failed: 0, failures: [] };
    }
    const session = this.mailer.openSession(smtp);
    const totals: AlertTotals = { alertsSent: 0, alreadySent: 0, failed: 0, failures: [] };
    const failures = new FailureTally();
    try {
      for await (const batch of this.dueAlerts()) {
        totals.alreadySent += batch.alreadySent;
        for (const alert of batch.pending) {
          const result = await this.alerts.claimAndSend(alert.key, this.clock.now(), () => this.deliver(session, alert, smtp.fromAddress));
          this.metrics.recordAlertOutcome(result.outcome);
          if (result.outcome === 'sent') totals.alertsSent += 1;
          else if (result.outcome === 'already-sent') totals.alreadySent += 1;
          else {
            totals.failed += 1;
            failures.add(this.reportFailure(alert, result.cause));
          }
        }
      }
    } finally {
      session.close();
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

  /**
   * One warning line per alert the relay did not take, naming the user by id (as the other log
   * lines do, not by address) and the failure class, never the relay's text; the next run retries it.
   */
  private reportFailure(alert: Pending, cause: unknown): { reason: AlertFailureReason; replyCode: number | null } {
    const fields = { user_id: alert.key.userId, fingerprint: alert.key.fingerprint, threshold: alert.key.threshold };
    if (cause instanceof SmtpDeliveryError) {
      const { reason, replyCode } = cause.failure;
      this.logger.warn(`Alert e-mail to user ${alert.key.userId} not sent, retried on the next run: ${cause.message}`, {
        ...fields,
        reason,
        reply_code: replyCode,
      });
      return { reason, replyCode };
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    this.logger.error(`Alert e-mail to user ${alert.key.userId} not sent, retried on the next run: ${message}`, {
      ...fields,
      reason: 'internal',
    });
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
   * The due alerts not yet recorded, in batches small enough to keep memory flat on a first run
   * over a large fleet. Recipients are grouped by their subscriptions, so each distinct scope is
   * queried once whatever the number of users sharing it, and checked in chunks of users.
   */
  private async *dueAlerts(): AsyncGenerator<{ pending: Pending[]; alreadySent: number }> {
    const now = this.clock.now();
    const thresholds = await this.settings.alertThresholds();
    const horizon = expiringWithinBefore(Math.max(...thresholds), now);
    for (const group of groupBySubscriptions(await this.alerts.recipients())) {
      const due = (await this.expiry.findCurrentExpiringBefore(horizon, group.subscriptions)).flatMap((certificate) => {
        const bucket = alertBucket(daysRemaining(certificate.notAfter, now), isExpired(certificate.notAfter, now), thresholds);
        return bucket ? [{ certificate, bucket }] : [];
      });
      if (due.length === 0) continue;
      const byKey = new Map(due.map((d) => [`${d.certificate.fingerprint}/${d.bucket.threshold}`, d]));
      const keys = due.map((d) => ({ fingerprint: d.certificate.fingerprint, threshold: d.bucket.threshold }));
      for (let start = 0; start < group.recipients.length; start += USERS_PER_BATCH) {
        const recipients = group.recipients.slice(start, start + USERS_PER_BATCH);
        const emails = new Map(recipients.map((r) => [r.id, r.email]));
        const undelivered = await this.alerts.undelivered(
          recipients.map((r) => r.id),
          keys,
        );
        const pending = undelivered.map((key) => {
          const { certificate, bucket } = byKey.get(`${key.fingerprint}/${key.threshold}`)!;
          return { key, email: emails.get(key.userId)!, certificate, bucket };
        });
        yield { pending, alreadySent: recipients.length * due.length - pending.length };
      }
    }
  }

  private async deliver(session: MailSession, alert: Pending, fromAddress: string): Promise<void> {
    const message = await this.templates.render(alert.bucket.eventType, templateValues(alert.certificate, this.clock.now()));
    await session.send({ to: alert.email, messageId: alertMessageId(alert.key, fromAddress), ...message });
  }
}

/** One alert names every endpoint the certificate is current on (docs/api-contract.md section 6). */
export function templateValues(certificate: ExpiringCertificate, now: Date): TemplateValues {
  return {
    EndpointName: certificate.endpoints.map((e) => e.name).join(', '),
    EndpointType: [...new Set(certificate.endpoints.map((e) => e.type))].join(', '),
    CommonName: certificate.commonName ?? certificate.fingerprint.slice(0, 16),
    NotAfter: `${certificate.notAfter.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
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

function groupBySubscriptions(recipients: Recipient[]): { subscriptions: string[]; recipients: Recipient[] }[] {
  const groups = new Map<string, { subscriptions: string[]; recipients: Recipient[] }>();
  for (const recipient of recipients) {
    const subscriptions = [...recipient.tagSubscriptions].sort();
    const key = JSON.stringify(subscriptions);
    const group = groups.get(key) ?? { subscriptions, recipients: [] };
    group.recipients.push(recipient);
    groups.set(key, group);
  }
  return [...groups.values()];
}
