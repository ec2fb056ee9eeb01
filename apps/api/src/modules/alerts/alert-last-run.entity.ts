import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The latest alert run's start and totals: one row (id 1), replaced by every run (migration AlertLastRun). */
@Entity('alert_last_run')
@Check('alert_last_run_one_row', 'id = 1')
export class AlertLastRunEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'alert_last_run_pkey' })
  id!: number;

  @Column({ type: 'timestamptz' })
  ranAt!: Date;

  @Column({ type: 'integer' })
  alertsSent!: number;

  @Column({ type: 'integer' })
  alreadySent!: number;

  /** Deliveries the SMTP server did not accept: the next run retries each of them. */
  @Column({ type: 'integer' })
  failed!: number;
}
