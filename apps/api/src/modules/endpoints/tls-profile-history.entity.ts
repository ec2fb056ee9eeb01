import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EndpointEntity } from './endpoint.entity';
import { TlsProfileColumns } from './tls-profile.entity';

/** A row each time an endpoint's TLS profile changed; written by scan ingestion. */
@Entity('endpoint_tls_profile_history')
@Index('endpoint_tls_profile_history_endpoint_idx', ['endpointId', 'scannedAt'])
export class TlsProfileHistoryEntity extends TlsProfileColumns {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'endpoint_tls_profile_history_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  endpointId!: string;

  @ManyToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_tls_profile_history_endpoint_id_fkey' })
  endpoint?: EndpointEntity;
}
