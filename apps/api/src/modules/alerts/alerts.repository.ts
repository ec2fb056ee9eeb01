import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withAdvisoryLock, withAdvisoryTryLock } from '../../database/advisory-lock';
import { ALERT_JOB_LOCK_KEY } from '../../database/advisory-lock-keys';

export interface Recipient {
  id: string;
  email: string;
  tagSubscriptions: string[];
}

export interface AlertKey {
  userId: string;
  fingerprint: string;
  threshold: number;
}

/** How claiming and sending one alert ended; a failure keeps what it failed with (the send's SmtpDeliveryError, or the database's error). */
export type ClaimResult = { outcome: 'sent' } | { outcome: 'already-sent' } | { outcome: 'failed'; cause: unknown };

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

  /** Users who get e-mail: notify on, account enabled, an address on file. */
  recipients(): Promise<Recipient[]> {
    return this.dataSource.query<Recipient[]>(
      `SELECT id, email, tag_subscriptions AS "tagSubscriptions" FROM users WHERE notify AND NOT disabled AND email <> '' ORDER BY id`,
    );
  }

  /** The keys among `candidates` (every user x every key) that have no record yet. */
  async undelivered(userIds: string[], keys: { fingerprint: string; threshold: number }[]): Promise<AlertKey[]> {
    if (userIds.length === 0 || keys.length === 0) return [];
    return this.dataSource.query<AlertKey[]>(
      `SELECT u.user_id AS "userId", k.fingerprint, k.threshold
         FROM unnest($1::uuid[]) AS u(user_id)
        CROSS JOIN unnest($2::text[], $3::int[]) AS k(fingerprint, threshold)
        WHERE NOT EXISTS (
          SELECT 1 FROM alert_records r WHERE r.user_id = u.user_id AND r.fingerprint = k.fingerprint AND r.threshold = k.threshold)`,
      [userIds, keys.map((k) => k.fingerprint), keys.map((k) => k.threshold)],
    );
  }

  /**
   * Claims one alert by inserting its record inside an open transaction, sends, and commits only
   * once the SMTP server accepted: a failed send rolls the record back (retried next run), and a
   * concurrent run's insert of the same key waits for us and then finds it delivered.
   */
  async claimAndSend(key: AlertKey, at: Date, send: () => Promise<void>): Promise<ClaimResult> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const claimed = (await runner.query(
        `INSERT INTO alert_records (user_id, fingerprint, threshold, sent_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING user_id`,
        [key.userId, key.fingerprint, key.threshold, at],
      )) as unknown[];
      if (claimed.length === 0) {
        await runner.commitTransaction();
        return { outcome: 'already-sent' };
      }
      await send();
      await runner.commitTransaction();
      return { outcome: 'sent' };
    } catch (cause) {
      await runner.rollbackTransaction().catch(() => undefined);
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
