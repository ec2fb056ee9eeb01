import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('audit_log')
@Index('audit_log_at_idx', ['at'])
@Index('audit_log_action_idx', ['action'])
@Index('audit_log_target_id_idx', ['targetId'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'audit_log_pkey' })
  id!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  at!: Date;

  /** Who acted, as people read it: a user's e-mail, `scanner:<name>` or `system`. */
  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'uuid', nullable: true })
  actorId!: string | null;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'text' })
  targetType!: string;

  @Column({ type: 'text', nullable: true })
  targetId!: string | null;

  @Column({ type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ type: 'jsonb', default: {} })
  details!: Record<string, unknown>;
}
