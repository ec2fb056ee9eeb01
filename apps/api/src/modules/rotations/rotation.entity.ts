import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { Regression, RotationChange } from '@certkeeper/domain';
import { EndpointEntity } from '../endpoints/endpoint.entity';
import type { CertUse } from '../links/endpoint-certificate.entity';

/**
 * One replacement of an endpoint's current certificate in one role, with what changed as it was
 * when it happened (docs/api-contract.md section 16). Fingerprints are history, not references:
 * a certificate pruned from the store leaves its rotations readable.
 */
@Entity('rotations')
@Index('rotations_endpoint_at_idx', ['endpointId', 'at', 'id'])
// The regressed rotation of each current certificate, for its event (alerts/facts/renewal-facts.ts).
@Index('rotations_regressed_idx', ['toFingerprint'], { where: 'cardinality(regressions) > 0' })
export class RotationEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'rotations_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  endpointId!: string;

  @ManyToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'rotations_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  @Column({ type: 'text' })
  certUse!: CertUse;

  @Column({ type: 'timestamptz' })
  at!: Date;

  @Column({ type: 'text', collation: 'C' })
  fromFingerprint!: string;

  @Column({ type: 'text', collation: 'C' })
  toFingerprint!: string;

  @Column({ type: 'jsonb' })
  changes!: RotationChange[];

  @Column({ type: 'text', array: true })
  regressions!: Regression[];
}
