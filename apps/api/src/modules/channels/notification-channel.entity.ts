import type { ChannelKind, EventType } from '@certkeeper/domain';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const CHANNEL_MODES = ['immediate', 'daily'] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];
/** The kinds that may gather a day's events into one message: chat rooms, not incident or machine receivers. */
export const DIGEST_KINDS = ['slack', 'teams', 'ntfy'] as const satisfies readonly ChannelKind[];
export const DEFAULT_DIGEST_HOUR = 8;

/**
 * A notification channel (docs/api-contract.md section 17). Its URL and secret are sealed under
 * ENCRYPTION_KEY (common/crypto/secret-box) like the SMTP password; only the URL's host is kept
 * readable, for the API to show.
 */
@Entity('notification_channels')
@Check('notification_channels_kind_check', `kind IN ('webhook', 'slack', 'teams', 'ntfy', 'pagerduty')`)
@Check('notification_channels_mode_check', `mode = 'immediate' OR (mode = 'daily' AND kind IN ('slack', 'teams', 'ntfy'))`)
@Check('notification_channels_digest_hour_check', 'digest_hour BETWEEN 0 AND 23')
export class NotificationChannelEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'notification_channels_pkey' })
  id!: string;

  @Index('notification_channels_name_key', { unique: true })
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  kind!: ChannelKind;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'text' })
  sealedUrl!: string;

  @Column({ type: 'text' })
  urlHost!: string;

  /** The webhook signing secret, the ntfy access token or the PagerDuty routing key; null when none is set. */
  @Column({ type: 'text', nullable: true })
  sealedSecret!: string | null;

  /** Empty: every endpoint; otherwise endpoints sharing one of them. */
  @Column({ type: 'text', array: true, default: '{}' })
  tags!: string[];

  @Column({ type: 'text', array: true })
  events!: EventType[];

  @Column({ type: 'text', default: 'immediate' })
  mode!: ChannelMode;

  /** The UTC hour of a daily channel's digest. */
  @Column({ type: 'smallint', default: DEFAULT_DIGEST_HOUR })
  digestHour!: number;

  /** When the last digest went out; null before the first. */
  @Column({ type: 'timestamptz', nullable: true })
  lastDigestAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastDeliveryAt!: Date | null;

  /** The last attempt's failure in our words (never the receiver's text, URL or secret); null once one succeeds. */
  @Column({ type: 'text', nullable: true })
  lastError!: string | null;
}
