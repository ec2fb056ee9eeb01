import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const DEFAULT_SCAN_CRON = '0 * * * *';
export const DEFAULT_SCAN_CONCURRENCY = 5;

@Entity('scanners')
@Check('scanners_scan_concurrency_check', 'scan_concurrency BETWEEN 1 AND 256')
// At most one default scanner, enforced by the database.
@Index('scanners_single_default_idx', ['isDefault'], { unique: true, where: 'is_default' })
export class ScannerEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'scanners_pkey' })
  id!: string;

  @Index('scanners_name_key', { unique: true })
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'boolean', default: false })
  isDefault!: boolean;

  /** SHA-256 of the `stx_s_...` token. */
  @Index('scanners_token_hash_key', { unique: true })
  @Column({ type: 'text' })
  tokenHash!: string;

  @Column({ type: 'text', default: DEFAULT_SCAN_CRON })
  scanCronExpression!: string;

  @Column({ type: 'integer', default: DEFAULT_SCAN_CONCURRENCY })
  scanConcurrency!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
