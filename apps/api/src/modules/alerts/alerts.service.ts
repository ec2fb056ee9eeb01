import { Injectable, Logger } from '@nestjs/common';
import { alertBucket, type AlertBucket, daysRemaining, isExpired, type TemplateValues } from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { type ExpiringCertificate, ExpiryRepository } from '../expiry/expiry.repository';
import { Mailer, type MailSession } from '../mail/mailer';
import { SettingsService } from '../settings/settings.service';
import { TemplatesService } from '../templates/templates.service';
import { type AlertKey, AlertsRepository, type Recipient } from './alerts.repository';

export interface AlertTotals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

interface Pending {
  key: AlertKey;
  email: string;
  certificate: ExpiringCertificate;
  bucket: AlertBucket;
}

/**
 * The alert job (SPEC, Events, "Alert job"): decide which (user, certificate, threshold) alerts
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
  ) {}

  runJob(): Promise<AlertTotals> {
    return this.alerts.withJobLock(async () => {
      const smtp = await this.settings.smtpSettings();
      if (!smtp) {
        this.logger.log('Mail is disabled or not configured; no alerts sent.');
        return { alertsSent: 0, alreadySent: 0, failed: 0 };
      }
      const { pending, alreadySent } = await this.decide();
      const session = this.mailer.openSession(smtp);
      const totals: AlertTotals = { alertsSent: 0, alreadySent, failed: 0 };
      try {
        for (const alert of pending) {
          const outcome = await this.alerts.claimAndSend(alert.key, this.clock.now(), () => this.deliver(session, alert));
          if (outcome === 'sent') totals.alertsSent += 1;
          else if (outcome === 'already-sent') totals.alreadySent += 1;
          else totals.failed += 1;
        }
      } finally {
        session.close();
      }
      this.logger.log('alert job finished', { alerts_sent: totals.alertsSent, already_sent: totals.alreadySent, failed: totals.failed });
      return totals;
    });
  }

  /**
   * Every due alert not yet recorded. Recipients are grouped by their subscriptions, so each
   * distinct scope is queried once, whatever the number of users sharing it.
   */
  async decide(): Promise<{ pending: Pending[]; alreadySent: number }> {
    const now = this.clock.now();
    const thresholds = await this.settings.alertThresholds();
    const horizon = new Date(now.getTime() + (Math.max(...thresholds) + 1) * DAY_MS);
    const pending: Pending[] = [];
    let candidates = 0;
    for (const group of groupBySubscriptions(await this.alerts.recipients())) {
      const due = (await this.expiry.findCurrentExpiringBefore(horizon, group.subscriptions)).flatMap((certificate) => {
        const bucket = alertBucket(daysRemaining(certificate.notAfter, now), isExpired(certificate.notAfter, now), thresholds);
        return bucket ? [{ certificate, bucket }] : [];
      });
      candidates += due.length * group.recipients.length;
      const byKey = new Map(due.map((d) => [`${d.certificate.fingerprint}/${d.bucket.threshold}`, d]));
      const emails = new Map(group.recipients.map((r) => [r.id, r.email]));
      const undelivered = await this.alerts.undelivered(
        group.recipients.map((r) => r.id),
        due.map((d) => ({ fingerprint: d.certificate.fingerprint, threshold: d.bucket.threshold })),
      );
      for (const key of undelivered) {
        const { certificate, bucket } = byKey.get(`${key.fingerprint}/${key.threshold}`)!;
        pending.push({ key, email: emails.get(key.userId)!, certificate, bucket });
      }
    }
    return { pending, alreadySent: candidates - pending.length };
  }

  private async deliver(session: MailSession, alert: Pending): Promise<void> {
    const message = await this.templates.render(alert.bucket.eventType, templateValues(alert.certificate, this.clock.now()));
    await session.send({ to: alert.email, ...message });
  }
}

/** One alert names every endpoint the certificate is current on (CONTRACT section 6). */
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
