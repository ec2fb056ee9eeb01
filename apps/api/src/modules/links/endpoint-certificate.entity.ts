import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity';
import { CertificateEntity } from '../certificates/certificate.entity';

export const CERT_USES = ['tls', 'signing', 'encryption', 'manual'] as const;
export type CertUse = (typeof CERT_USES)[number];

/**
 * A certificate seen on an endpoint in one role. Current links are what the endpoint presents
 * now; historical ones are kept. One row per (endpoint, certificate, use): a re-sighting
 * reactivates it instead of inserting a duplicate.
 */
@Entity('endpoint_certificates')
@Check('endpoint_certificates_cert_use_check', `cert_use IN ('tls', 'signing', 'encryption', 'manual')`)
@Index('endpoint_certificates_link_key', ['endpointId', 'fingerprint', 'certUse'], { unique: true })
@Index('endpoint_certificates_fingerprint_idx', ['fingerprint'])
@Index('endpoint_certificates_current_idx', ['endpointId', 'certUse'], { where: 'is_current' })
@Index('endpoint_certificates_current_not_after_idx', ['notAfter', 'id'], { where: 'is_current' })
// The dashboard's counts of current links per endpoint in scope, read index-only (docs/api-contract.md section 11).
@Index('endpoint_certificates_current_endpoint_idx', ['endpointId', 'notAfter'], { where: 'is_current' })
// The few links a stored renewal supersedes: the superseded filter and count read these, a certificate's deletion finds its links.
@Index('endpoint_certificates_superseded_idx', ['endpointId'], { where: 'superseded_by IS NOT NULL' })
@Index('endpoint_certificates_superseded_by_idx', ['supersededBy'], { where: 'superseded_by IS NOT NULL' })
export class EndpointCertificateEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'endpoint_certificates_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  endpointId!: string;

  @ManyToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_certificates_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  @Column({ type: 'text', collation: 'C' })
  fingerprint!: string;

  // RESTRICT: a certificate any link references cannot be deleted.
  @ManyToOne(() => CertificateEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'fingerprint', foreignKeyConstraintName: 'endpoint_certificates_fingerprint_fkey' })
  certificate?: CertificateEntity;

  @Column({ type: 'text' })
  certUse!: CertUse;

  @Column({ type: 'boolean' })
  isCurrent!: boolean;

  /** The certificate's notAfter, copied (certificates never change) so expiry lists read one index. */
  @Column({ type: 'timestamptz' })
  notAfter!: Date;

  @Column({ type: 'timestamptz' })
  firstSeenAt!: Date;

  @Column({ type: 'timestamptz' })
  lastSeenAt!: Date;

  /**
   * The stored renewal superseding this current link's certificate (docs/api-contract.md section
   * 16), as the rule answered when the link, a renewal or the clock last changed it (RenewalsRepository.refreshSuperseded).
   */
  @Column({ type: 'text', collation: 'C', nullable: true })
  supersededBy!: string | null;

  // SET NULL: a renewal deleted supersedes nothing; the deletion then asks the rule again.
  @ManyToOne(() => CertificateEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'superseded_by', foreignKeyConstraintName: 'endpoint_certificates_superseded_by_fkey' })
  supersedingCertificate?: CertificateEntity;
}
