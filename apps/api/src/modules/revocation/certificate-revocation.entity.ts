import { Check, Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { CertificateEntity } from '../certificates/certificate.entity';

export const REVOCATION_STATUSES = ['good', 'revoked', 'unknown'] as const;
export type RevocationStatus = (typeof REVOCATION_STATUSES)[number];
export const REVOCATION_SOURCES = ['crl', 'ocsp'] as const;
export type RevocationSource = (typeof REVOCATION_SOURCES)[number];

/** The latest revocation check of a certificate (docs/api-contract.md section 18), written by check-revocation. */
@Entity('certificate_revocations')
@Check('certificate_revocations_status_check', `status IN ('good', 'revoked', 'unknown')`)
@Check('certificate_revocations_source_check', `source IN ('crl', 'ocsp')`)
export class CertificateRevocationEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'certificate_revocations_pkey' })
  fingerprint!: string;

  @OneToOne(() => CertificateEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'fingerprint', foreignKeyConstraintName: 'certificate_revocations_fingerprint_fkey' })
  certificate?: CertificateEntity;

  @Column({ type: 'text' })
  status!: RevocationStatus;

  @Column({ type: 'text' })
  source!: RevocationSource;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** The CRL or OCSP reason code's name (keyCompromise, ...); null when none was given. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'timestamptz' })
  checkedAt!: Date;

  /** Why the status is unknown, in one sentence; null otherwise. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** An OCSP answer that verified is reused until then (its nextUpdate, at most a day on); null: asked again at the next run. */
  @Column({ type: 'timestamptz', nullable: true })
  nextCheckAt!: Date | null;
}
