import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last run of each maintenance task. */
@Entity('maintenance_runs')
export class MaintenanceRunEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'maintenance_runs_pkey' })
  task!: string;

  @Column({ type: 'timestamptz' })
  lastRunAt!: Date;

  /** `succeeded` or `failed: <reason>`. */
  @Column({ type: 'text' })
  lastOutcome!: string;

  @Column({ type: 'jsonb', default: {} })
  lastCounts!: Record<string, number>;
}
