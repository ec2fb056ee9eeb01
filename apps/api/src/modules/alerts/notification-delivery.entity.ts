import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/**
 * The notification outbox: one row per delivered (recipient, event type, certificate, bucket),
 * committed only once the receiver accepted the message (docs/api-contract.md section 6).
 * `cert_expired` is delivered in bucket 0. A recipient is `user:<id>` for a user's e-mail; the row
 * names the user too, so that deleting the user deletes its deliveries.
 */
@Entity('notification_deliveries')
@Index('notification_deliveries_fingerprint_idx', ['fingerprint'])
@Check('notification_deliveries_recipient_check', `recipient = 'user:' || user_id::text`)
export class NotificationDeliveryEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  recipient!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  eventType!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  fingerprint!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'notification_deliveries_pkey' })
  bucket!: number;

  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'notification_deliveries_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'timestamptz' })
  deliveredAt!: Date;
}
