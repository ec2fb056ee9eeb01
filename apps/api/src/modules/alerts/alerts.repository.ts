import type { EventType } from '@certkeeper/domain/templates';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { withAdvisoryLock, withAdvisoryTryLock } from '../../database/advisory-lock';
import { ALERT_JOB_LOCK_KEY } from '../../database/advisory-lock-keys';
import { inlined } from '../../database/inlined';
import { checkOutConnection } from '../../database/pool';
import type { SqlQuery } from '../../database/row-stream';
import { inSubscriptionScope } from '../expiry/subscription-scope';
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

/** Whose delivery a row of the outbox is: a user's e-mail or a notification channel's. */
export type RecipientOwner = Pick<Recipient, 'userId' | 'channelId'>;

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

  /**
   * The e-mail recipients (users with notify on, account enabled and an address on file), then the
   * enabled notification channels (docs/api-contract.md section 17).
   */
  async recipients(): Promise<Recipient[]> {
    const users = await this.dataSource.query<Recipient[]>(
      `SELECT 'user:' || id AS key, 'email' AS channel, email AS address, tag_subscriptions AS tags, id AS "userId",
              NULL AS "channelId", NULL AS events, NULL AS digest
         FROM users WHERE notify AND NOT disabled AND email <> '' ORDER BY id`,
    );
    const channels = await this.dataSource.query<(Omit<Recipient, 'digest'> & { digestHour: number | null; since: Date })[]>(
      `SELECT 'channel:' || id AS key, kind AS channel, '' AS address, tags, NULL AS "userId", id AS "channelId", events,
              CASE WHEN mode = 'daily' THEN digest_hour END AS "digestHour", COALESCE(last_digest_at, created_at) AS since
         FROM notification_channels WHERE enabled ORDER BY id`,
    );
    return [
      ...users,
      ...channels.map(({ digestHour, since, ...channel }) => ({
        ...channel,
        digest: digestHour === null ? null : { hour: digestHour, since },
      })),
    ];
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
  claimAndSend(key: DeliveryKey, recipient: RecipientOwner, at: Date, send: () => Promise<DeliveryOutcome>): Promise<ClaimResult> {
    return this.claimOnce(insertDeliveries([key], recipient, at), send);
  }

  /**
   * Several deliveries to one channel at once, claimed together in one transaction (docs/decisions
   * /0027-notification-channels.md): inserts the rows not held yet, sends each claimed one, and
   * before the commit deletes the rows of those the receiver did not accept, so the commit writes
   * a row only for a 2xx, as claimAndSend does. A concurrent run's insert of one of the keys waits
   * for the commit, then finds it delivered or, its row deleted, claims it itself. One result per
   * key, in order; a failure of our own (the database) fails every delivery not yet committed.
   */
  async claimEachAndSend(
    keys: DeliveryKey[],
    recipient: RecipientOwner,
    at: Date,
    send: (key: DeliveryKey) => Promise<DeliveryOutcome>,
  ): Promise<ClaimResult[]> {
    const { client, release } = await checkOutConnection(this.dataSource);
    // Null until the claim is in: then one outcome per key, null for a key a concurrent run held.
    let outcomes: GroupOutcome[] | null = null;
    try {
      const [, claimed] = (await client.query(`BEGIN; ${inlined(insertDeliveries(keys, recipient, at))}`)) as unknown as QueryResult[];
      const held = new Set((claimed.rows as DeliveryKey[]).map(deliveryKeyText));
      outcomes = await Promise.all(
        keys.map((key) =>
          held.has(deliveryKeyText(key))
            ? send(key).catch((cause: unknown) => ({ status: 'thrown' as const, cause }))
            : Promise.resolve(null),
        ),
      );
      const sent = outcomes;
      const unaccepted = keys.filter((_, index) => sent[index] !== null && sent[index].status !== 'delivered');
      const records = sent.flatMap((outcome) => (outcome?.status === 'delivered' && outcome.record ? [outcome.record] : []));
      const writes = [...(unaccepted.length > 0 ? [deleteDeliveries(unaccepted)] : []), ...records];
      await client.query([...writes.map(inlined), 'COMMIT'].join(';\n'));
      release();
      return sent.map(claimResultOf);
    } catch (cause) {
      // The connection is discarded, and the transaction, whatever its state, rolled back with it:
      // nothing of the group was recorded, whatever the receiver accepted.
      release(cause as Error);
      if (outcomes === null) return keys.map(() => ({ outcome: 'failed', cause }));
      return outcomes.map((outcome) => (outcome?.status === 'delivered' ? { outcome: 'failed', cause } : claimResultOf(outcome)));
    }
  }

  /**
   * A daily channel's digest (docs/api-contract.md section 17): claims every delivery it gathers
   * at once, sends the one message for those no concurrent run delivered, and commits them with
   * the digest's time only once the receiver accepted it.
   */
  claimDigestAndSend(
    keys: DeliveryKey[],
    recipient: RecipientOwner & { channelId: string },
    at: Date,
    send: (claimed: DeliveryKey[]) => Promise<DeliveryOutcome>,
  ): Promise<ClaimResult & { claimed: number }> {
    let claimed: DeliveryKey[] = [];
    return this.claimOnce(
      insertDeliveries(keys, recipient, at),
      (rows) => {
        claimed = rows as DeliveryKey[];
        return send(claimed);
      },
      // Not before the send: the channel's row stays unlocked for the log of the attempt.
      { text: 'UPDATE notification_channels SET last_digest_at = $2 WHERE id = $1', values: [recipient.channelId, at] },
    ).then((result) => ({ ...result, claimed: claimed.length }));
  }

  /** Records that a daily channel's digest slot passed with nothing to send: what falls due later waits for the next one. */
  async skipDigest(channelId: string, at: Date): Promise<void> {
    await this.dataSource.query('UPDATE notification_channels SET last_digest_at = $2 WHERE id = $1', [channelId, at]);
  }

  /**
   * The certificates a PagerDuty channel triggered an incident for, not resolved yet, that are no
   * longer current on any endpoint in its scope (docs/api-contract.md section 17).
   */
  async incidentsToResolve(channelId: string, scope: readonly string[]): Promise<string[]> {
    const rows = await this.dataSource.query<{ fingerprint: string }[]>(
      `SELECT DISTINCT d.fingerprint FROM notification_deliveries d
        WHERE d.channel_id = $1::uuid
          AND NOT EXISTS (SELECT 1 FROM pagerduty_resolutions r WHERE r.channel_id = $1::uuid AND r.fingerprint = d.fingerprint)
          AND NOT EXISTS (
            SELECT 1 FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
             WHERE l.fingerprint = d.fingerprint AND l.is_current AND ${inSubscriptionScope('e', '$2')})
        ORDER BY d.fingerprint`,
      [channelId, scope],
    );
    return rows.map((row) => row.fingerprint);
  }

  /** Claims one PagerDuty resolve the way claimAndSend claims a delivery: recorded only once PagerDuty accepted it. */
  claimResolutionAndSend(channelId: string, fingerprint: string, at: Date, send: () => Promise<DeliveryOutcome>): Promise<ClaimResult> {
    return this.claimOnce(
      {
        text: `INSERT INTO pagerduty_resolutions (channel_id, fingerprint, resolved_at) VALUES ($1, $2, $3)
               ON CONFLICT DO NOTHING RETURNING fingerprint`,
        values: [channelId, fingerprint, at],
      },
      send,
    );
  }

  /**
   * The one exactly-once rule: `claim` inserts the rows inside an open transaction (none when a
   * concurrent run holds them already), then `send`, and commit only once the receiver accepted.
   * A failed send rolls the claim back, retried next run; a concurrent run's insert of the same
   * key waits for us and then finds it delivered. `afterSent` and the outcome's `record` commit
   * with the claim; they run after the send, so that no row they lock is held while the receiver
   * answers.
   *
   * Opening the transaction with the claim is one round trip, and the writes after the send with
   * the commit another, instead of a round trip per statement: the statements go as one query
   * string with their values written in (docs/decisions/0027-notification-channels.md).
   */
  private async claimOnce(
    claim: SqlQuery,
    send: (claimed: unknown[]) => Promise<DeliveryOutcome>,
    afterSent?: SqlQuery,
  ): Promise<ClaimResult> {
    const { client, release } = await checkOutConnection(this.dataSource);
    try {
      // A query string of several statements answers one result per statement.
      const [, claimed] = (await client.query(`BEGIN; ${inlined(claim)}`)) as unknown as QueryResult[];
      if (claimed.rows.length === 0) {
        await client.query('ROLLBACK');
        release();
        return { outcome: 'already-sent' };
      }
      const sent = await send(claimed.rows);
      if (sent.status === 'failed') {
        await client.query('ROLLBACK');
        release();
        return { outcome: 'failed', failure: sent.failure };
      }
      const writes = [afterSent, sent.record].filter((write) => write !== undefined);
      await client.query([...writes.map(inlined), 'COMMIT'].join(';\n'));
      release();
      return { outcome: 'sent' };
    } catch (cause) {
      // The connection is discarded, and the transaction, whatever its state, rolled back with it.
      release(cause as Error);
      return { outcome: 'failed', cause };
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

/** Inserts the outbox rows not held yet and answers the keys it inserted. */
function insertDeliveries(keys: DeliveryKey[], owner: RecipientOwner, at: Date): SqlQuery {
  return {
    text: `INSERT INTO notification_deliveries (recipient, event_type, fingerprint, bucket, user_id, channel_id, delivered_at)
           SELECT k.recipient, k.event_type, k.fingerprint, k.bucket, $5::uuid, $6::uuid, $7::timestamptz
             FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS k(recipient, event_type, fingerprint, bucket)
           ON CONFLICT DO NOTHING RETURNING recipient, event_type AS "eventType", fingerprint, bucket`,
    values: [
      keys.map((k) => k.recipient),
      keys.map((k) => k.eventType),
      keys.map((k) => k.fingerprint),
      keys.map((k) => k.bucket),
      owner.userId,
      owner.channelId,
      at,
    ],
  };
}

/** The rows of `keys`, deleted before a claim group commits: those the receiver did not accept. */
function deleteDeliveries(keys: DeliveryKey[]): SqlQuery {
  return {
    text: `DELETE FROM notification_deliveries d
            USING unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS k(recipient, event_type, fingerprint, bucket)
            WHERE d.recipient = k.recipient AND d.event_type = k.event_type AND d.fingerprint = k.fingerprint AND d.bucket = k.bucket`,
    values: [keys.map((k) => k.recipient), keys.map((k) => k.eventType), keys.map((k) => k.fingerprint), keys.map((k) => k.bucket)],
  };
}

function deliveryKeyText(key: DeliveryKey): string {
  return `${key.recipient}\n${key.eventType}\n${key.fingerprint}\n${key.bucket}`;
}

/** What became of one delivery of a claim group: not claimed (null: a concurrent run held it), sent, or thrown by our side. */
type GroupOutcome = DeliveryOutcome | { status: 'thrown'; cause: unknown } | null;

/** A claim group's result for one key. */
function claimResultOf(outcome: GroupOutcome): ClaimResult {
  if (outcome === null) return { outcome: 'already-sent' };
  if (outcome.status === 'delivered') return { outcome: 'sent' };
  if (outcome.status === 'thrown') return { outcome: 'failed', cause: outcome.cause };
  return { outcome: 'failed', failure: outcome.failure };
}
