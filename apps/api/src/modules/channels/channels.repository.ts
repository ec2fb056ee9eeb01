import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ChannelKind } from '@certkeeper/domain';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../database/errors';
import type { SqlQuery } from '../../database/row-stream';
import type { Transaction } from '../../database/transaction';
import { ChannelDeliveryEntity, type ChannelDeliveryStatus } from './channel-delivery.entity';
import { NotificationChannelEntity } from './notification-channel.entity';

export class DuplicateChannelNameError extends Error {}

export type ChannelRecord = Pick<
  NotificationChannelEntity,
  'name' | 'kind' | 'enabled' | 'sealedUrl' | 'urlHost' | 'sealedSecret' | 'tags' | 'events' | 'mode' | 'digestHour'
>;

/** One attempt to deliver, as the channel's log keeps it. */
export interface DeliveryAttempt {
  at: Date;
  eventType: string;
  fingerprint: string | null;
  threshold: number | null;
  status: ChannelDeliveryStatus;
  httpStatus: number | null;
  error: string | null;
}

/** A channel whose last attempt failed: the dashboard's alerting banner names it. */
export interface FailingChannel {
  id: string;
  name: string;
  kind: ChannelKind;
  lastError: string;
}

@Injectable()
export class ChannelsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private channels(transaction?: Transaction) {
    return (transaction ?? this.dataSource.manager).getRepository(NotificationChannelEntity);
  }

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  listAll(): Promise<NotificationChannelEntity[]> {
    return this.channels().find({ order: { name: 'ASC', id: 'ASC' } });
  }

  /** Locked until commit when read in a transaction, so two changes of one channel take turns. */
  findById(id: string, transaction?: Transaction): Promise<NotificationChannelEntity | null> {
    if (!transaction) return this.channels().findOneBy({ id });
    return this.channels(transaction).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The enabled channels of one kind, as the alert job's senders serve them. */
  enabledOfKind(kind: ChannelKind): Promise<NotificationChannelEntity[]> {
    return this.channels().find({ where: { kind, enabled: true }, order: { name: 'ASC', id: 'ASC' } });
  }

  /** @throws DuplicateChannelNameError */
  async insert(
    record: ChannelRecord & Pick<NotificationChannelEntity, 'createdAt'>,
    transaction: Transaction,
  ): Promise<NotificationChannelEntity> {
    try {
      const repository = this.channels(transaction);
      return await repository.save(repository.create(record));
    } catch (error) {
      if (isUniqueViolation(error, 'notification_channels_name_key')) throw new DuplicateChannelNameError();
      throw error;
    }
  }

  /** @throws DuplicateChannelNameError */
  async update(id: string, changes: Partial<ChannelRecord>, transaction: Transaction): Promise<NotificationChannelEntity | null> {
    try {
      if (Object.keys(changes).length > 0) await this.channels(transaction).update({ id }, changes);
      return await this.channels(transaction).findOneBy({ id });
    } catch (error) {
      if (isUniqueViolation(error, 'notification_channels_name_key')) throw new DuplicateChannelNameError();
      throw error;
    }
  }

  async delete(id: string, transaction: Transaction): Promise<NotificationChannelEntity | null> {
    const channel = await this.findById(id, transaction);
    if (channel) await this.channels(transaction).delete({ id });
    return channel;
  }

  /** Logs one attempt and keeps the channel's last delivery and last error up to date. */
  async recordAttempt(channelId: string, attempt: DeliveryAttempt): Promise<void> {
    const { text, values } = this.attemptRecord(channelId, attempt);
    await this.dataSource.query(text, values);
  }

  /** recordAttempt's statement, for a caller that commits it with its own writes (a delivery's claim). */
  attemptRecord(channelId: string, attempt: DeliveryAttempt): SqlQuery {
    return {
      text: `WITH logged AS (
               INSERT INTO notification_channel_deliveries (channel_id, at, event_type, fingerprint, threshold, status, http_status, error)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8))
             UPDATE notification_channels
                SET last_delivery_at = CASE WHEN $6 = 'failed' THEN last_delivery_at ELSE $2 END, last_error = $8
              WHERE id = $1`,
      values: [
        channelId,
        attempt.at,
        attempt.eventType,
        attempt.fingerprint,
        attempt.threshold,
        attempt.status,
        attempt.httpStatus,
        attempt.error,
      ],
    };
  }

  /** Newest first. */
  async deliveries(
    channelId: string,
    window: { limit: number; offset: number },
  ): Promise<{ rows: ChannelDeliveryEntity[]; total: number }> {
    const [rows, total] = await this.dataSource.getRepository(ChannelDeliveryEntity).findAndCount({
      where: { channelId },
      order: { seq: 'DESC' },
      take: window.limit,
      skip: window.offset,
    });
    return { rows, total };
  }

  /** Enabled channels whose last attempt failed, by name. */
  failingChannels(): Promise<FailingChannel[]> {
    return this.dataSource.query<FailingChannel[]>(
      `SELECT id, name, kind, last_error AS "lastError" FROM notification_channels
        WHERE enabled AND last_error IS NOT NULL ORDER BY name, id`,
    );
  }

  async markDigestSent(channelId: string, at: Date): Promise<void> {
    await this.dataSource.query('UPDATE notification_channels SET last_digest_at = $2 WHERE id = $1', [channelId, at]);
  }
}
