import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CertificateEntity } from '../certificates/certificate.entity';
import { RootStoreEntity } from './root-store.entity';

/** A trust anchor of a store; the certificate itself lives in the global store. */
@Entity('root_store_anchors')
@Index('root_store_anchors_fingerprint_idx', ['fingerprint'])
export class RootStoreAnchorEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'root_store_anchors_pkey' })
  storeId!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'root_store_anchors_pkey' })
  fingerprint!: string;

  @ManyToOne(() => RootStoreEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'store_id', foreignKeyConstraintName: 'root_store_anchors_store_id_fkey' })
  store?: RootStoreEntity;

  // RESTRICT: pruning never removes a certificate an anchor references.
  @ManyToOne(() => CertificateEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'fingerprint', foreignKeyConstraintName: 'root_store_anchors_fingerprint_fkey' })
  certificate?: CertificateEntity;
}
