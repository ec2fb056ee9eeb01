import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EndpointEntity } from './endpoint.entity';

/** One row per scan run of a host or saml endpoint, written by scan ingestion. */
@Entity('scan_history')
// Pruning asks, per certificate, whether any history row still names it; a rotation, the chain an
// endpoint last presented with a certificate (its chainComplete).
@Index('scan_history_fingerprint_endpoint_idx', ['fingerprint', 'endpointId', 'scannedAt'])
@Index('scan_history_endpoint_scanned_at_idx', ['endpointId', 'scannedAt'])
export class ScanHistoryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'scan_history_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  endpointId!: string;

  @ManyToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'scan_history_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  @Column({ type: 'timestamptz' })
  scannedAt!: Date;

  @Column({ type: 'boolean' })
  success!: boolean;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'text', nullable: true })
  resolvedIp!: string | null;

  // "C" like every other fingerprint column: joins to certificates can then use the index.
  @Column({ type: 'text', collation: 'C', nullable: true })
  fingerprint!: string | null;

  @Column({ type: 'text', nullable: true })
  tlsVersion!: string | null;

  /** Whether the chain the server presented reached a self-signed or anchor certificate on its own. */
  @Column({ type: 'boolean', nullable: true })
  chainComplete!: boolean | null;

  @Column({ type: 'uuid', nullable: true })
  scannerId!: string | null;

  /** The agent's id of the result: posting it again finds this row and changes nothing. */
  @Index('scan_history_result_id_key', { unique: true })
  @Column({ type: 'uuid', nullable: true })
  resultId!: string | null;
}
