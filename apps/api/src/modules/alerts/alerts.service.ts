import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  alertTime,
  type Channel,
  daysRemaining,
  digestDue,
  type DueEvent,
  dueEvents,
  type EventContext,
  type EventType,
  type TemplateValues,
} from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { SMTP_FAILURE_REASONS } from '../mail/smtp-failure';
import { AppMetrics } from '../metrics/app-metrics';
import { SettingsService } from '../settings/settings.service';
import { type AlertRun, AlertsRepository, type ClaimResult, type DeliveryKey } from './alerts.repository';
import { DeliveryLanes, type Lane } from './delivery-lanes';
import { type CandidateCertificate, type FactLoader, mergeCandidates } from './facts/fact-loader';
import { FACT_LOADERS } from './facts/fact-loaders';
import type { Recipient } from './recipient';
import type { Notification, NotificationSender, SenderSession } from './senders/notification-sender';
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
// Deliveries under way at once: each holds a connection for its claim and briefly another for its
// channel's log, so 6 take at most 12 of the pool's 20 and leave the rest to the API's requests.
const DELIVERIES_IN_FLIGHT = 6;
// Of those, to one channel at once: a slow receiver holds at most these, the others keep going.
// Also the most deliveries one claim group sends and claims together.
const CHANNEL_IN_FLIGHT = 3;
// Deliveries queued or under way before the job reads more due alerts: memory stays flat however many are due.
const DELIVERIES_HELD = 10_000;

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
    const totals = new RunTotals();
    const sessions = await this.openSessions();
    if (sessions.size === 0) return totals.result();
    const now = this.clock.now();
    const recipients = (await this.alerts.recipients()).filter((recipient) => sessions.has(recipient.channel));
    // A daily channel's deliveries wait for its digest: gathered only on the run that sends it.
    const digests = new Map(
      recipients.filter((r) => r.digest && digestDue(r.digest.hour, r.digest.since, now)).map((r) => [r.key, [] as Pending[]]),
    );
    // Nothing aborts a run today (each SMTP step has its own deadline); senders honour the signal so a run deadline needs no change in them.
    const { signal } = new AbortController();
    const lanes = new DeliveryLanes(DELIVERIES_IN_FLIGHT, DELIVERIES_HELD);
    const unanswered = new UnansweredChannels();
    const run = { signal, totals, unanswered };
    // A channel's deliveries go in claim groups of as many as it takes at once.
    const forming = new Map<string, Pending[]>();
    const startGroup = (group: Pending[]) =>
      lanes.add(laneOf(group[0].recipient), () => this.deliverGroup(group, sessions.get(group[0].recipient.channel)!, run), group.length);
    try {
      for await (const batch of this.dueAlerts(recipients)) {
        totals.alreadySent += batch.alreadySent;
        for (const alert of batch.pending) {
          const { recipient } = alert;
          if (recipient.digest) {
            digests.get(recipient.key)?.push(alert);
            continue;
          }
          if (recipient.channelId === null) {
            await lanes.add(laneOf(recipient), () => this.deliver(alert, sessions.get(recipient.channel)!, run));
            continue;
          }
          const group = [...(forming.get(recipient.key) ?? []), alert];
          forming.set(recipient.key, group);
          if (group.length < CHANNEL_IN_FLIGHT) continue;
          forming.delete(recipient.key);
          await startGroup(group);
        }
        for (const group of forming.values()) await startGroup(group);
        forming.clear();
      }
      for (const [key, gathered] of digests) {
        const recipient = recipients.find((r) => r.key === key)!;
        await lanes.add(laneOf(recipient), () =>
          gathered.length === 0
            ? this.alerts.skipDigest(recipient.channelId!, this.clock.now())
            : this.sendDigest(recipient, gathered, sessions.get(recipient.channel)!, signal, totals),
        );
      }
      await lanes.drain();
      for (const { channelId, count } of unanswered.skipped()) {
        this.logger.warn(
          `Channel ${channelId} left a request unanswered past the deadline: ${count} more of its deliveries not sent, retried on the next run`,
          { channel_id: channelId, reason: 'timeout', count },
        );
      }
      for (const { sender, session } of sessions.values()) await this.finish(sender, session, signal);
    } finally {
      // A failure of the job's own (the database) leaves nothing under way when the sessions close.
      await lanes.drain().catch(() => undefined);
      for (const { session } of sessions.values()) session.close();
    }
    const result = totals.result();
    this.logger.log('alert job finished', {
      alerts_sent: result.alertsSent,
      already_sent: result.alreadySent,
      failed: result.failed,
      failures: result.failures,
    });
    return result;
  }

  /** One e-mail, claimed and sent exactly once (AlertsRepository.claimAndSend). */
  private async deliver(
    alert: Pending,
    { sender, session }: { sender: NotificationSender; session: SenderSession },
    run: { signal: AbortSignal; totals: RunTotals; unanswered: UnansweredChannels },
  ): Promise<void> {
    const notification = this.notificationOf(alert);
    const result = await this.alerts.claimAndSend(alert.key, alert.recipient, this.clock.now(), () =>
      session.send(notification, { signal: run.signal }),
    );
    this.count(alert, sender, result, run);
  }

  /**
   * Deliveries to one channel, as many as it takes at once, sent together and claimed in one
   * transaction (AlertsRepository.claimEachAndSend): each still recorded only once its receiver
   * accepted it. A channel that left a request unanswered past its deadline is not asked again
   * this run: what remains for it counts as failed by timeout, unclaimed, and waits for the next
   * run, so a stalled receiver costs the run one deadline, not one per delivery.
   */
  private async deliverGroup(
    alerts: Pending[],
    { sender, session }: { sender: NotificationSender; session: SenderSession },
    run: { signal: AbortSignal; totals: RunTotals; unanswered: UnansweredChannels },
  ): Promise<void> {
    const { recipient } = alerts[0];
    if (run.unanswered.skip(recipient, alerts.length)) {
      alerts.forEach(() => this.metrics.recordAlertOutcome(sender.channel, 'failed'));
      run.totals.add(UNASKED, alerts.length, () => UNASKED.failure);
      return;
    }
    const byKey = new Map(alerts.map((alert) => [alert.key, this.notificationOf(alert)]));
    const results = await this.alerts.claimEachAndSend(
      alerts.map((alert) => alert.key),
      recipient,
      this.clock.now(),
      (key) => session.send(byKey.get(key)!, { signal: run.signal }),
    );
    results.forEach((result, index) => this.count(alerts[index], sender, result, run));
  }

  /** One delivery's result in the run's totals and metrics; a channel that timed out is asked nothing more this run. */
  private count(
    alert: Pending,
    sender: NotificationSender,
    result: ClaimResult,
    run: { totals: RunTotals; unanswered: UnansweredChannels },
  ): void {
    const { recipient } = alert;
    this.metrics.recordAlertOutcome(sender.channel, result.outcome);
    run.totals.add(result, 1, () => this.reportFailure(sender, recipient, alert.key, result));
    if (recipient.channelId !== null && 'failure' in result && result.failure.reason === 'timeout') run.unanswered.add(recipient);
  }

  /** A channel's work after the deliveries (PagerDuty's resolves): its failure is logged, and never fails the run's deliveries. */
  private async finish(sender: NotificationSender, session: SenderSession, signal: AbortSignal): Promise<void> {
    try {
      await session.finish?.({ signal });
    } catch (error) {
      this.logger.error(`The ${sender.channel} channels' end of run failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private notificationOf(alert: Pending): Notification {
    const values = { ...templateValues(alert.certificate, this.clock.now()), ...alert.event.values };
    return { ...alert.key, recipient: alert.recipient, values, eventValues: alert.event.values ?? {}, certificate: alert.certificate };
  }

  /**
   * A daily channel's digest (docs/api-contract.md section 17): every delivery it gathered claimed
   * at once, one message, recorded together once the receiver accepted it; a failure leaves them
   * all for the next run.
   */
  private async sendDigest(
    recipient: Recipient,
    gathered: Pending[],
    { sender, session }: { sender: NotificationSender; session: SenderSession },
    signal: AbortSignal,
    totals: RunTotals,
  ): Promise<void> {
    const byKey = new Map(gathered.map((alert) => [deliveryKeyOf(alert.key), this.notificationOf(alert)]));
    const result = await this.alerts.claimDigestAndSend(
      gathered.map((alert) => alert.key),
      { userId: null, channelId: recipient.channelId! },
      this.clock.now(),
      (claimed) =>
        session.sendDigest!(
          claimed.map((key) => byKey.get(deliveryKeyOf(key))!),
          { signal },
        ),
    );
    this.metrics.recordAlertOutcome(sender.channel, result.outcome);
    if (result.outcome !== 'sent') {
      totals.add(result, gathered.length, () => this.reportFailure(sender, recipient, gathered[0].key, result));
      return;
    }
    totals.add(result, result.claimed, () => undefined);
    totals.alreadySent += gathered.length - result.claimed;
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
   * One warning line per delivery the receiver did not take, naming the user or channel by id (as
   * the other log lines do, never by address or URL) and the failure class, never the receiver's
   * text; the next run retries it.
   */
  private reportFailure(
    sender: NotificationSender,
    recipient: Recipient,
    key: DeliveryKey,
    result: ClaimResult,
  ): { reason: AlertFailureReason; replyCode: number | null } {
    const owner = recipient.userId === null ? { channel_id: recipient.channelId } : { user_id: recipient.userId };
    const fields = { ...owner, fingerprint: key.fingerprint, threshold: key.bucket };
    const to = recipient.userId === null ? `channel ${recipient.channelId}` : `user ${recipient.userId}`;
    const what = `${sender.deliveryNoun} to ${to} not sent, retried on the next run`;
    if ('failure' in result) {
      const { reason, replyCode, description } = result.failure;
      this.logger.warn(`${what}: ${description}`, { ...fields, reason, reply_code: replyCode });
      return { reason, replyCode };
    }
    const cause = 'cause' in result ? result.cause : null;
    const message = cause instanceof Error ? cause.message : String(cause);
    this.logger.error(`${what}: ${message}`, { ...fields, reason: 'internal' });
    return { reason: 'internal', replyCode: null };
  }

  /** How many alerts are due and how many of those were delivered before, without sending. */
  async countDueAlerts(): Promise<{ pending: number; alreadySent: number }> {
    const counts = { pending: 0, alreadySent: 0 };
    for await (const batch of this.dueAlerts(await this.alerts.recipients())) {
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
  private async *dueAlerts(recipients: Recipient[]): AsyncGenerator<{ pending: Pending[]; alreadySent: number }> {
    const [thresholds, policy] = await Promise.all([this.settings.alertThresholds(), this.settings.alertPolicy()]);
    const context: EventContext = { now: this.clock.now(), thresholds, policy };
    for (const group of groupByScope(recipients)) {
      const candidates = mergeCandidates(await Promise.all(this.factLoaders.map((loader) => loader.load(group.tags, context))));
      const due = candidates.flatMap((certificate) => dueEvents(certificate, context).map((event) => ({ certificate, event })));
      if (due.length === 0) continue;
      const byKey = new Map(due.map((d) => [eventKey(d.certificate.fingerprint, d.event), d]));
      const events = due.map((d) => ({ eventType: d.event.eventType, fingerprint: d.certificate.fingerprint, bucket: d.event.bucket }));
      const dueOfType = countBy(due, (d) => d.event.eventType);
      // A first run over a large fleet decides millions of these: no per-alert spread or scan of `due`.
      const wantedBy = (recipient: Recipient) =>
        recipient.events === null ? due.length : recipient.events.reduce((sum, eventType) => sum + (dueOfType.get(eventType) ?? 0), 0);
      for (let start = 0; start < group.recipients.length; start += USERS_PER_BATCH) {
        const recipients = group.recipients.slice(start, start + USERS_PER_BATCH);
        const byRecipient = new Map(recipients.map((r) => [r.key, r]));
        const undelivered = await this.alerts.undelivered(
          recipients.map((r) => r.key),
          events,
        );
        const pending: Pending[] = [];
        for (const key of undelivered) {
          const recipient = byRecipient.get(key.recipient)!;
          if (!hears(recipient, key.eventType)) continue;
          const { certificate, event } = byKey.get(eventKey(key.fingerprint, key))!;
          pending.push({ key, recipient, certificate, event });
        }
        const wanted = recipients.reduce((sum, recipient) => sum + wantedBy(recipient), 0);
        yield { pending, alreadySent: wanted - pending.length };
      }
    }
  }
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/**
 * E-mail's deliveries share the run's one SMTP session, a message at a time; each channel is a
 * receiver of its own, several requests at once.
 */
function laneOf(recipient: Recipient): Lane {
  return recipient.channelId === null ? { key: recipient.channel, limit: 1 } : { key: recipient.key, limit: CHANNEL_IN_FLIGHT };
}

/** A delivery left unasked because its channel stopped answering this run. */
const UNASKED = {
  outcome: 'failed',
  failure: { reason: 'timeout', replyCode: null, description: 'the channel left a request unanswered past the deadline this run' },
} as const satisfies ClaimResult;

/** The channels that left a request unanswered past the deadline this run, and how many deliveries each was then not asked. */
class UnansweredChannels {
  private readonly channels = new Map<string, { channelId: string | null; count: number }>();

  add(recipient: Recipient): void {
    if (!this.channels.has(recipient.key)) this.channels.set(recipient.key, { channelId: recipient.channelId, count: 0 });
  }

  /** True, and `count` deliveries counted, when the recipient's channel stopped answering this run. */
  skip(recipient: Recipient, count = 1): boolean {
    const unanswered = this.channels.get(recipient.key);
    if (unanswered) unanswered.count += count;
    return unanswered !== undefined;
  }

  /** Those with a delivery not asked. */
  skipped(): { channelId: string | null; count: number }[] {
    return [...this.channels.values()].filter((channel) => channel.count > 0);
  }
}

/** A channel hears the event types it chose; a user hears every one. */
function hears(recipient: Recipient, eventType: EventType): boolean {
  return recipient.events === null || recipient.events.includes(eventType);
}

function deliveryKeyOf(key: DeliveryKey): string {
  return `${key.recipient}/${eventKey(key.fingerprint, key)}`;
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

/** A run's totals, its failures counted by reason and reply code in the order its result lists them. */
class RunTotals {
  alertsSent = 0;
  alreadySent = 0;
  failed = 0;
  private readonly byKey = new Map<string, AlertFailureCount>();

  /** `count` deliveries claimed with one result; `report` logs a failure and says its class. */
  add(result: ClaimResult, count: number, report: () => { reason: AlertFailureReason; replyCode: number | null } | undefined): void {
    if (result.outcome === 'sent') this.alertsSent += count;
    else if (result.outcome === 'already-sent') this.alreadySent += count;
    else {
      this.failed += count;
      const failure = report();
      if (failure) this.addFailure(failure, count);
    }
  }

  result(): AlertTotals {
    return { alertsSent: this.alertsSent, alreadySent: this.alreadySent, failed: this.failed, failures: this.counts() };
  }

  private addFailure(failure: { reason: AlertFailureReason; replyCode: number | null }, count: number): void {
    const key = `${failure.reason}/${failure.replyCode ?? ''}`;
    const counted = this.byKey.get(key) ?? { ...failure, count: 0 };
    counted.count += count;
    this.byKey.set(key, counted);
  }

  /** Most frequent first; ties by reason, then reply code, so two runs with the same failures read the same. */
  private counts(): AlertFailureCount[] {
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
