import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An override of a built-in template; absent means the default applies. */
@Entity('notification_templates')
export class NotificationTemplateEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'notification_templates_pkey' })
  eventType!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'notification_templates_pkey' })
  channel!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  body!: string;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
