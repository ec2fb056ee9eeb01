import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { ScannerEntity } from '../scanners/scanner.entity';

export const DEFAULT_NETWORK_SCAN_CRON = '0 2 * * *';

/** A discovery network (docs/api-contract.md section 8): ranges and ports a scanner sweeps. */
@Entity('discovery_networks')
@Index('discovery_networks_scanner_id_idx', ['scannerId'])
export class DiscoveryNetworkEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'discovery_networks_pkey' })
  id!: string;

  @Index('discovery_networks_name_key', { unique: true })
  @Column({ type: 'text' })
  name!: string;

  /** Normalised entries, in the order given (libs/domain parseNetworkRanges). */
  @Column({ type: 'text', array: true })
  ranges!: string[];

  @Column({ type: 'integer', array: true })
  ports!: number[];

  /** Null only after the assigned scanner was deleted: then the network is not swept until reassigned. */
  @Column({ type: 'uuid', nullable: true })
  scannerId!: string | null;

  @ManyToOne(() => ScannerEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'scanner_id', foreignKeyConstraintName: 'discovery_networks_scanner_id_fkey' })
  scanner?: ScannerEntity;

  @Column({ type: 'text', default: DEFAULT_NETWORK_SCAN_CRON })
  scanCronExpression!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;

  /** When the last sweep completed. */
  @Column({ type: 'timestamptz', nullable: true })
  lastSweepAt!: Date | null;

  /** The cron slot a sweep was last queued for (null: none yet); the scheduler queues the next slot after it. */
  @Column({ type: 'timestamptz', nullable: true })
  lastScheduledAt!: Date | null;
}
