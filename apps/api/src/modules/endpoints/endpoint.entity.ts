import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
// A type only: the test run's global setup loads the entities without the @certkeeper path mapping.
import type { StarttlsProtocol } from '@certkeeper/domain/protocol';
import { ScannerEntity } from '../scanners/scanner.entity';

export const ENDPOINT_TYPES = ['host', 'saml', 'manual'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

@Entity('endpoints')
@Check('endpoints_type_check', `type IN ('host', 'saml', 'manual')`)
@Check('endpoints_port_check', 'port BETWEEN 1 AND 65535')
// STARTTLS_PROTOCOLS of libs/domain, spelt out as the migration EndpointStarttls wrote it.
@Check('endpoints_starttls_check', `starttls IN ('smtp', 'imap', 'pop3', 'ftp', 'ldap', 'postgres', 'xmpp')`)
@Index('endpoints_host_identity_idx', ['dnsName', 'port'])
// Discovery asks whether a host endpoint on a port names an address (docs/api-contract.md section 8).
@Index('endpoints_ip_address_port_idx', ['ipAddress', 'port'])
@Index('endpoints_metadata_url_idx', ['metadataUrl'])
@Index('endpoints_scanner_id_idx', ['scannerId'])
// The dashboard's counts by type and failing endpoints, oldest error first (docs/api-contract.md section 11).
@Index('endpoints_type_idx', ['type'])
@Index('endpoints_error_since_idx', ['errorSince', 'id'], { where: 'error_since IS NOT NULL' })
export class EndpointEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'endpoints_pkey' })
  id!: string;

  /** The list's default order: natural and case-insensitive, over collation certkeeper_natural (migration EndpointListSorts). */
  @Index('endpoints_name_natural_idx', { synchronize: false })
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: EndpointType;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'boolean', default: false })
  scanExempt!: boolean;

  /** Null only after the pinned scanner was deleted: then the default scanner scans it. */
  @Column({ type: 'uuid', nullable: true })
  scannerId!: string | null;

  @ManyToOne(() => ScannerEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'scanner_id', foreignKeyConstraintName: 'endpoints_scanner_id_fkey' })
  scanner?: ScannerEntity;

  @Column({ type: 'text', default: '' })
  notes!: string;

  @Index('endpoints_tags_idx', { synchronize: false })
  @Column({ type: 'text', array: true, default: '{}' })
  tags!: string[];

  /** host: lower-case DNS name or IP literal. */
  @Column({ type: 'text', nullable: true })
  dnsName!: string | null;

  @Column({ type: 'integer', nullable: true })
  port!: number | null;

  /** host: the address scans connect to when set (SNI stays the DNS name). */
  @Column({ type: 'text', nullable: true })
  ipAddress!: string | null;

  /** host: the plain-text upgrade before the handshake (docs/api-contract.md section 13); null: implicit TLS. */
  @Column({ type: 'text', nullable: true })
  starttls!: StarttlsProtocol | null;

  @Column({ type: 'text', nullable: true })
  metadataUrl!: string | null;

  /** Lower-case name, dnsName and metadataUrl, trigram-indexed for `q`; written with the row, in SQL. */
  @Index('endpoints_search_text_trgm_idx', { synchronize: false })
  @Column({ type: 'text', default: '' })
  searchText!: string;

  /** saml: the parsed metadata of the latest successful fetch. */
  @Column({ type: 'jsonb', nullable: true })
  samlMetadata!: Record<string, unknown> | null;

  @Column({ type: 'timestamptz', nullable: true })
  errorSince!: Date | null;

  /** Stale scans on the dashboard: a partial index on coalesce(last_scanned_at, created_at), see migration DashboardIndexes. */
  @Index('endpoints_stale_scan_idx', { synchronize: false })
  // The list's lastScannedAt sort, never-scanned endpoints last either way (migration EndpointListSorts).
  @Index('endpoints_last_scanned_at_idx', { synchronize: false })
  @Index('endpoints_last_scanned_at_desc_idx', { synchronize: false })
  @Column({ type: 'timestamptz', nullable: true })
  lastScannedAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  lastScanError!: string | null;

  /**
   * When `POST /endpoints/{id}/scan` asked for a scan no ingested result has answered yet: due
   * work for the agent's long-poll (docs/decisions/0012-scan-now.md, migration ScanRequests).
   */
  @Index('endpoints_scan_due_idx', { synchronize: false })
  @Column({ type: 'timestamptz', nullable: true })
  scanRequestedAt!: Date | null;

  /**
   * The notAfter of the current certificate that expires first; null without one. Kept by triggers
   * on endpoint_certificates (migration EndpointListSorts), never written by the application.
   */
  @Index('endpoints_soonest_not_after_idx', { synchronize: false })
  @Index('endpoints_soonest_not_after_desc_idx', { synchronize: false })
  @Column({ type: 'timestamptz', nullable: true, insert: false, update: false })
  soonestNotAfter!: Date | null;

  @Index('endpoints_created_at_idx', { synchronize: false })
  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
