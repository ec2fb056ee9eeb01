import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { NotificationChannelEntity } from './notification-channel.entity';

export const CHANNEL_DELIVERY_STATUSES = ['delivered', 'failed', 'resolved'] as const;
export type ChannelDeliveryStatus = (typeof CHANNEL_DELIVERY_STATUSES)[number];

/**
 * One attempt to deliver to a channel, as its operator reads it (`GET .../{id}/deliveries`). The
 * outbox (notification_deliveries) decides what was delivered; this only tells the story, so it
 * holds the failure in our words and never a URL, token or key.
 */
@Entity('notification_channel_deliveries')
@Index('notification_channel_deliveries_channel_id_seq_idx', ['channelId', 'seq'])
@Check('notification_channel_deliveries_status_check', `status IN ('delivered', 'failed', 'resolved')`)
export class ChannelDeliveryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'notification_channel_deliveries_pkey' })
  id!: string;

  /** Insertion order: "newest first" even for attempts within one millisecond. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', select: false })
  seq!: string;

  @Column({ type: 'uuid' })
  channelId!: string;

  @ManyToOne(() => NotificationChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'notification_channel_deliveries_channel_id_fkey' })
  channel?: NotificationChannelEntity;

  @Column({ type: 'timestamptz' })
  at!: Date;

  /** An event type, `test`, or `digest` for a daily channel's message. */
  @Column({ type: 'text' })
  eventType!: string;

  @Column({ type: 'text', collation: 'C', nullable: true })
  fingerprint!: string | null;

  @Column({ type: 'integer', nullable: true })
  threshold!: number | null;

  @Column({ type: 'text' })
  status!: ChannelDeliveryStatus;

  @Column({ type: 'integer', nullable: true })
  httpStatus!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
