import type { EventType } from '@certkeeper/domain/templates';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withAdvisoryLock, withAdvisoryTryLock } from '../../database/advisory-lock';
import { ALERT_JOB_LOCK_KEY } from '../../database/advisory-lock-keys';
import type { Recipient } from './recipient';
import type { DeliveryFailure, DeliveryOutcome } from './senders/notification-sender';

/** The outbox's key of one delivery (docs/api-contract.md section 6). */
export interface DeliveryKey {
  recipient: string;
  eventType: EventType;
  fingerprint: string;
  bucket: number;
}

/** How claiming and sending one delivery ended: a failure keeps the receiver's answer, or what was thrown (the database's error). */
export type ClaimResult =
  | { outcome: 'sent' }
  | { outcome: 'already-sent' }
  | { outcome: 'failed'; failure: DeliveryFailure }
  | { outcome: 'failed'; cause: unknown };

/** The latest alert run: when it started and what it did. */
export interface AlertRun {
  ranAt: Date;
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

@Injectable()
export class AlertsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs the job while holding the alert-job advisory lock on a dedicated connection, after a run
   * in progress on any replica has finished (waiting at most `maxWaitMs`).
   * @throws AdvisoryLockWaitExceeded when that run lasts longer.
   */
  withJobLock<T>(work: () => Promise<T>, maxWaitMs: number): Promise<T> {
    return withAdvisoryLock(this.dataSource, ALERT_JOB_LOCK_KEY, work, { maxWaitMs });
  }

  /** Runs the job under the same lock only if no run is in progress anywhere; null otherwise. */
  withJobLockIfIdle<T>(work: () => Promise<T>): Promise<T | null> {
    return withAdvisoryTryLock(this.dataSource, ALERT_JOB_LOCK_KEY, work);
  }

  /** The e-mail recipients: users with notify on, account enabled and an address on file. */
  recipients(): Promise<Recipient[]> {
    return this.dataSource.query<Recipient[]>(
      `SELECT 'user:' || id AS key, 'email' AS channel, email AS address, tag_subscriptions AS tags, id AS "userId"
         FROM users WHERE notify AND NOT disabled AND email <> '' ORDER BY id`,
    );
  }

  /** The deliveries among every recipient x every due event that the outbox has no row for yet. */
  async undelivered(recipients: string[], events: Omit<DeliveryKey, 'recipient'>[]): Promise<DeliveryKey[]> {
    if (recipients.length === 0 || events.length === 0) return [];
    return this.dataSource.query<DeliveryKey[]>(
      `SELECT r.recipient, k.event_type AS "eventType", k.fingerprint, k.bucket
         FROM unnest($1::text[]) AS r(recipient)
        CROSS JOIN unnest($2::text[], $3::text[], $4::int[]) AS k(event_type, fingerprint, bucket)
        WHERE NOT EXISTS (
          SELECT 1 FROM notification_deliveries d
           WHERE d.recipient = r.recipient AND d.event_type = k.event_type AND d.fingerprint = k.fingerprint AND d.bucket = k.bucket)`,
      [recipients, events.map((e) => e.eventType), events.map((e) => e.fingerprint), events.map((e) => e.bucket)],
    );
  }

  /**
   * Claims one delivery by inserting its outbox row inside an open transaction, sends, and commits
   * only once the receiver accepted: a failed send rolls the row back (retried next run), and a
   * concurrent run's insert of the same key waits for us and then finds it delivered.
   */
  async claimAndSend(key: DeliveryKey, userId: string, at: Date, send: () => Promise<DeliveryOutcome>): Promise<ClaimResult> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const claimed = (await runner.query(
        `INSERT INTO notification_deliveries (recipient, event_type, fingerprint, bucket, user_id, delivered_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING recipient`,
        [key.recipient, key.eventType, key.fingerprint, key.bucket, userId, at],
      )) as unknown[];
      if (claimed.length === 0) {
        await runner.commitTransaction();
        return { outcome: 'already-sent' };
      }
      const sent = await send();
      if (sent.status === 'failed') {
        await runner.rollbackTransaction();
        return { outcome: 'failed', failure: sent.failure };
      }
      await runner.commitTransaction();
      return { outcome: 'sent' };
    } catch (cause) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      return { outcome: 'failed', cause };
    } finally {
      await runner.release();
    }
  }

  /** Replaces the latest run's record (one row, whichever replica ran). */
  async recordRun(run: AlertRun): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO alert_last_run (id, ran_at, alerts_sent, already_sent, failed) VALUES (1, $1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET ran_at = EXCLUDED.ran_at, alerts_sent = EXCLUDED.alerts_sent,
              already_sent = EXCLUDED.already_sent, failed = EXCLUDED.failed`,
      [run.ranAt, run.alertsSent, run.alreadySent, run.failed],
    );
  }

  /** The latest run, or null before the first one. */
  async lastRun(): Promise<AlertRun | null> {
    const rows = await this.dataSource.query<AlertRun[]>(
      `SELECT ran_at AS "ranAt", alerts_sent AS "alertsSent", already_sent AS "alreadySent", failed FROM alert_last_run WHERE id = 1`,
    );
    return rows[0] ?? null;
  }
}
