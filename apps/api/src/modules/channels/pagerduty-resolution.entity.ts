import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { NotificationChannelEntity } from './notification-channel.entity';

/**
 * A PagerDuty incident Certkeeper resolved: the certificate it triggered for is no longer current
 * on any endpoint in the channel's scope (docs/api-contract.md section 17). Committed only after
 * PagerDuty accepted the resolve, so it is sent once.
 */
@Entity('pagerduty_resolutions')
export class PagerDutyResolutionEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pagerduty_resolutions_pkey' })
  channelId!: string;

  @ManyToOne(() => NotificationChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'pagerduty_resolutions_channel_id_fkey' })
  channel?: NotificationChannelEntity;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'pagerduty_resolutions_pkey' })
  fingerprint!: string;

  @Column({ type: 'timestamptz' })
  resolvedAt!: Date;
}
