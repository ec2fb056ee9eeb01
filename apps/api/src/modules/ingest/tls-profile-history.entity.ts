import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity';
import type { TlsVersionSupport } from '../endpoints/tls-profile.entity';

/** A row each time an endpoint's TLS profile changed. */
@Entity('endpoint_tls_profile_history')
@Index('endpoint_tls_profile_history_endpoint_idx', ['endpointId', 'scannedAt'])
export class TlsProfileHistoryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'endpoint_tls_profile_history_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  endpointId!: string;

  @ManyToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_tls_profile_history_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  @Column({ type: 'timestamptz' })
  scannedAt!: Date;

  @Column({ type: 'jsonb' })
  versions!: TlsVersionSupport[];

  @Column({ type: 'text', nullable: true })
  negotiatedVersion!: string | null;

  @Column({ type: 'text', nullable: true })
  negotiatedCipherSuite!: string | null;
}
