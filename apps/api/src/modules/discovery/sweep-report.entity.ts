import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DiscoverySweepEntity } from './sweep.entity';

/** A sweep report already applied, by the id its agent chose: the same report posted again changes nothing. */
@Entity('discovery_sweep_reports')
export class DiscoverySweepReportEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'discovery_sweep_reports_pkey' })
  reportId!: string;

  @Index('discovery_sweep_reports_sweep_id_idx')
  @Column({ type: 'uuid' })
  sweepId!: string;

  @ManyToOne(() => DiscoverySweepEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sweep_id', foreignKeyConstraintName: 'discovery_sweep_reports_sweep_id_fkey' })
  sweep?: DiscoverySweepEntity;

  @Column({ type: 'timestamptz' })
  receivedAt!: Date;
}
