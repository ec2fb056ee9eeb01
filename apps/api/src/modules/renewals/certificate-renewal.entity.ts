import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CertificateEntity } from '../certificates/certificate.entity';

/**
 * A stored certificate and a renewal of it by the timeless half of docs/api-contract.md section
 * 16's rule (issued an hour later at least, covering its DNS names, same key algorithm and issuer
 * organization), recorded when either is stored; whether the renewal supersedes it now (not
 * expired, stored long enough, the certificate current) is asked when read (superseded-by.ts).
 */
@Entity('certificate_renewals')
@Index('certificate_renewals_renewal_idx', ['renewal'])
export class CertificateRenewalEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'certificate_renewals_pkey' })
  certificate!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'certificate_renewals_pkey' })
  renewal!: string;

  @ManyToOne(() => CertificateEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'certificate', foreignKeyConstraintName: 'certificate_renewals_certificate_fkey' })
  certificateRow?: CertificateEntity;

  @ManyToOne(() => CertificateEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'renewal', foreignKeyConstraintName: 'certificate_renewals_renewal_fkey' })
  renewalRow?: CertificateEntity;
}
