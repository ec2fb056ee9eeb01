import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The prom-client registry of one application instance, never prom-client's global one: tests and
 * tools run several applications in one process, and each must report only its own requests and
 * alerts. Holds the families the process itself counts (HTTP requests, alert deliveries) and the
 * process defaults; the inventory families are read from the database at scrape time
 * (MetricsService).
 *
 * Counters are per process, as Prometheus expects: with several replicas, sum them in the query.
 */
@Injectable()
export class AppMetrics {
  readonly registry = new Registry();

  private readonly alertsSent = new Counter({
    name: 'certkeeper_alerts_sent_total',
    help: 'Expiry alert e-mails the SMTP server accepted, since this process started.',
    registers: [this.registry],
  });

  private readonly alertsFailed = new Counter({
    name: 'certkeeper_alerts_failed_total',
    help: 'Expiry alert e-mails the SMTP server did not accept (retried on the next run), since this process started.',
    registers: [this.registry],
  });

  private readonly notifications = new Counter({
    name: 'certkeeper_notifications_total',
    help: 'Messages the alert job sent by channel kind (email, webhook, slack, teams, ntfy, pagerduty) and status (delivered, failed, resolved), since this process started.',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'certkeeper_http_requests_total',
    help: 'HTTP responses sent, by method, route template (unmatched for no route) and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'certkeeper_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to finishing its response, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor() {
    // Registers fresh metric objects in this registry only (a second call on the same registry would throw).
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * One delivery attempt of the alert job on a channel (a daily digest is one). `already-sent`
   * (another run delivered it) counts nowhere; the alerts_* series count e-mail alone.
   */
  recordAlertOutcome(kind: string, outcome: 'sent' | 'failed' | 'already-sent'): void {
    if (outcome === 'already-sent') return;
    this.notifications.inc({ kind, status: outcome === 'sent' ? 'delivered' : 'failed' });
    if (kind !== 'email') return;
    if (outcome === 'sent') this.alertsSent.inc();
    else this.alertsFailed.inc();
  }

  /** A PagerDuty incident the alert job resolved. */
  recordResolved(kind: string): void {
    this.notifications.inc({ kind, status: 'resolved' });
  }
}
