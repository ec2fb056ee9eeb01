import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Server-wide settings as JSON documents by key: `alert_thresholds`, `alert_policy`, `mail`. */
@Entity('settings')
export class SettingEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'settings_pkey' })
  key!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
