import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/**
 * The dedup record of one delivered alert: (user, certificate, threshold). It is committed only
 * after the SMTP server accepted the message. `cert_expired` alerts use threshold 0.
 */
@Entity('alert_records')
@Index('alert_records_fingerprint_idx', ['fingerprint'])
export class AlertRecordEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'alert_records_pkey' })
  userId!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'alert_records_pkey' })
  fingerprint!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'alert_records_pkey' })
  threshold!: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'alert_records_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'timestamptz' })
  sentAt!: Date;
}
