import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Every distinct SAML metadata document once, by the SHA-256 of its bytes. */
@Entity('saml_documents')
export class SamlDocumentEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'saml_documents_pkey' })
  digest!: string;

  @Column({ type: 'text' })
  document!: string;

  @Column({ type: 'integer' })
  bytes!: number;

  @Column({ type: 'timestamptz' })
  firstSeenAt!: Date;

  @Column({ type: 'timestamptz' })
  lastSeenAt!: Date;
}
