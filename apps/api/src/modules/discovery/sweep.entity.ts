import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ScannerEntity } from '../scanners/scanner.entity';
import { DiscoveryNetworkEntity } from './network.entity';

export const SWEEP_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type SweepStatus = (typeof SWEEP_STATUSES)[number];
export type SweepTrigger = 'schedule' | 'request';

/** One sweep of a discovery network by its scanner's agent (docs/api-contract.md section 8). */
@Entity('discovery_sweeps')
@Check('discovery_sweeps_status_check', `status IN ('queued', 'running', 'completed', 'failed')`)
@Check('discovery_sweeps_trigger_check', `trigger IN ('schedule', 'request')`)
@Index('discovery_sweeps_network_requested_idx', ['networkId', 'requestedAt'])
// Partial (one queued or running sweep per network): declared in the migration only.
@Index('discovery_sweeps_one_active_key', { synchronize: false })
export class DiscoverySweepEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'discovery_sweeps_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  networkId!: string;

  @ManyToOne(() => DiscoveryNetworkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'network_id', foreignKeyConstraintName: 'discovery_sweeps_network_id_fkey' })
  network?: DiscoveryNetworkEntity;

  /** The scanner whose agent runs it; null once that scanner was deleted (the sweep then fails). */
  @Index('discovery_sweeps_scanner_id_idx')
  @Column({ type: 'uuid', nullable: true })
  scannerId!: string | null;

  @ManyToOne(() => ScannerEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'scanner_id', foreignKeyConstraintName: 'discovery_sweeps_scanner_id_fkey' })
  scanner?: ScannerEntity;

  @Column({ type: 'text', default: 'queued' })
  status!: SweepStatus;

  @Column({ type: 'text' })
  trigger!: SweepTrigger;

  /** What the agent was given when it claimed the sweep; null while queued. */
  @Column({ type: 'text', array: true, nullable: true })
  ranges!: string[] | null;

  @Column({ type: 'integer', array: true, nullable: true })
  ports!: number[] | null;

  @Column({ type: 'timestamptz' })
  requestedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  /** The agent's last sign of life: the claim, then each report. A running sweep quiet for too long fails. */
  @Column({ type: 'timestamptz', nullable: true })
  lastReportAt!: Date | null;

  @Column({ type: 'integer' })
  addressesTotal!: number;

  @Column({ type: 'integer', default: 0 })
  addressesProbed!: number;

  @Column({ type: 'integer', default: 0 })
  servicesFound!: number;

  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
