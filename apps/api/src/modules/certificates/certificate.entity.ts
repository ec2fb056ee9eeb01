import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** Every certificate once, keyed by the SHA-256 of its DER. Attributes are parsed here, never by the agent. */
@Entity('certificates')
@Index('certificates_not_after_idx', ['notAfter'])
@Index('certificates_serial_number_idx', ['serialNumber'])
@Index('certificates_subject_key_id_idx', ['subjectKeyId'])
@Index('certificates_common_name_idx', ['commonName'])
export class CertificateEntity {
  /** 64 lower-case hex; collation C so prefix searches use the primary key index. */
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'certificates_pkey' })
  fingerprint!: string;

  @Index('certificates_sha1_fingerprint_key', { unique: true })
  @Column({ type: 'text', collation: 'C' })
  sha1Fingerprint!: string;

  @Column({ type: 'bytea' })
  der!: Buffer;

  @Column({ type: 'text' })
  serialNumber!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  issuer!: string;

  /** SHA-256 of the DER-encoded subject and issuer names: exact name comparison for issuer lookup. */
  @Index('certificates_subject_dn_hash_idx')
  @Column({ type: 'text', nullable: true })
  subjectDnHash!: string | null;

  @Column({ type: 'text', nullable: true })
  issuerDnHash!: string | null;

  @Column({ type: 'text', nullable: true })
  commonName!: string | null;

  @Column({ type: 'text', nullable: true })
  subjectOrganization!: string | null;

  @Column({ type: 'text', nullable: true })
  subjectOrganizationalUnit!: string | null;

  @Column({ type: 'text', nullable: true })
  issuerCommonName!: string | null;

  @Column({ type: 'text', nullable: true })
  issuerOrganization!: string | null;

  @Index('certificates_sans_idx', { synchronize: false })
  @Column({ type: 'text', array: true, default: '{}' })
  sans!: string[];

  /** dnsNamesOf(sans): what a renewal must cover (docs/api-contract.md section 16); GIN-indexed for `@>`. */
  @Index('certificates_dns_names_idx', { synchronize: false })
  @Column({ type: 'text', array: true, default: '{}' })
  dnsNames!: string[];

  /** Lower-case common name and SANs, trigram-indexed for substring search. */
  @Index('certificates_search_text_trgm_idx', { synchronize: false })
  @Column({ type: 'text', default: '' })
  searchText!: string;

  @Column({ type: 'timestamptz' })
  notBefore!: Date;

  @Column({ type: 'timestamptz' })
  notAfter!: Date;

  @Column({ type: 'text' })
  keyAlgorithm!: string;

  @Column({ type: 'integer', nullable: true })
  keySize!: number | null;

  @Column({ type: 'text', nullable: true })
  keyCurve!: string | null;

  @Column({ type: 'text' })
  signatureAlgorithm!: string;

  @Column({ type: 'text', array: true, default: '{}' })
  keyUsage!: string[];

  @Column({ type: 'text', array: true, default: '{}' })
  extendedKeyUsage!: string[];

  @Column({ type: 'text', array: true, default: '{}' })
  ocspUrls!: string[];

  @Column({ type: 'text', array: true, default: '{}' })
  caIssuersUrls!: string[];

  @Column({ type: 'text', array: true, default: '{}' })
  crlDistributionPoints!: string[];

  @Column({ type: 'text', nullable: true })
  subjectKeyId!: string | null;

  @Column({ type: 'text', nullable: true })
  authorityKeyId!: string | null;

  @Column({ type: 'boolean' })
  isCa!: boolean;

  @Column({ type: 'integer', nullable: true })
  pathLength!: number | null;

  @Column({ type: 'boolean' })
  selfSigned!: boolean;

  /** Root stores the certificate chains to; filled by trust evaluation. Empty until then. */
  @Column({ type: 'text', array: true, default: '{}' })
  trustedBy!: string[];

  @Column({ type: 'boolean', default: false })
  isTrustAnchor!: boolean;

  /** Issuers whose signature on this certificate was verified: a signature never changes, so re-evaluations skip them. */
  @Column({ type: 'text', array: true, default: '{}' })
  verifiedIssuers!: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
