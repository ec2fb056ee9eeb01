import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity';

/**
 * What is wrong with an endpoint (docs/api-contract.md section 18), stored so the list filters on
 * it through an index rather than computing it per request; recomputed whenever one of its inputs
 * changes (FindingsService). An endpoint without a row has no findings and ignores none.
 */
@Entity('endpoint_findings')
export class EndpointFindingsEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'endpoint_findings_pkey' })
  endpointId!: string;

  @OneToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_findings_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  /** The codes that hold now, less the ignored ones: what the endpoint shows and the list filters on (GIN, migration RevocationAndFindings). */
  @Index('endpoint_findings_codes_idx', { synchronize: false })
  @Column({ type: 'text', array: true, default: '{}' })
  codes!: string[];

  /** `ignoredFindings`: codes the operator chose to hide for this endpoint. */
  @Column({ type: 'text', array: true, default: '{}' })
  ignored!: string[];

  /** host: the fingerprints of the chain presented at the latest successful scan, leaf first (weak_signature reads its intermediates). */
  @Column({ type: 'text', array: true, default: '{}' })
  presentedChain!: string[];

  /** host: whether that chain was complete (chain_incomplete); null before a successful scan. */
  @Column({ type: 'boolean', nullable: true })
  presentedChainComplete!: boolean | null;

  @Column({ type: 'timestamptz', nullable: true })
  computedAt!: Date | null;
}
