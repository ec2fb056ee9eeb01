import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { NotificationChannelEntity } from '../channels/notification-channel.entity';
import { UserEntity } from '../users/user.entity';

/**
 * The notification outbox: one row per delivered (recipient, event type, certificate, bucket),
 * committed only once the receiver accepted the message (docs/api-contract.md section 6).
 * `cert_expired` is delivered in bucket 0. A recipient is `user:<id>` for a user's e-mail or
 * `channel:<id>` for a notification channel; the row names the user or the channel too, so that
 * deleting either deletes its deliveries.
 */
@Entity('notification_deliveries')
@Index('notification_deliveries_fingerprint_idx', ['fingerprint'])
@Index('notification_deliveries_channel_id_idx', ['channelId'])
@Check(
  'notification_deliveries_recipient_check',
  `(user_id IS NOT NULL AND channel_id IS NULL AND recipient = 'user:' || user_id::text)
        OR (channel_id IS NOT NULL AND user_id IS NULL AND recipient = 'channel:' || channel_id::text)`,
)
export class NotificationDeliveryEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  recipient!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  eventType!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  fingerprint!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  bucket!: number;

  @Column({ type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'notification_deliveries_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'uuid', nullable: true })
  channelId!: string | null;

  @ManyToOne(() => NotificationChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'notification_deliveries_channel_id_fkey' })
  channel?: NotificationChannelEntity;

  @Column({ type: 'timestamptz' })
  deliveredAt!: Date;
}
