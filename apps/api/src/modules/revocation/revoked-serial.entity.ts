import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { RevocationListEntity } from './revocation-list.entity';

/** A serial number a verified CRL lists, as lower-case hex like certificates.serial_number. */
@Entity('revoked_serials')
export class RevokedSerialEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'revoked_serials_pkey' })
  crlUrl!: string;

  @ManyToOne(() => RevocationListEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'crl_url', foreignKeyConstraintName: 'revoked_serials_crl_url_fkey' })
  revocationList?: RevocationListEntity;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'revoked_serials_pkey' })
  serialNumber!: string;

  @Column({ type: 'timestamptz' })
  revokedAt!: Date;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;
}
