import type { TlsVersionSupport } from '@certkeeper/domain/protocol';
import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { EndpointEntity } from './endpoint.entity';

/**
 * The columns of a TLS profile, shared by the latest profile and its history rows so the two
 * tables cannot drift apart. Not an entity: TypeORM reads these columns through inheritance.
 */
export abstract class TlsProfileColumns {
  @Column({ type: 'timestamptz' })
  scannedAt!: Date;

  @Column({ type: 'jsonb' })
  versions!: TlsVersionSupport[];

  @Column({ type: 'text', nullable: true })
  negotiatedVersion!: string | null;

  @Column({ type: 'text', nullable: true })
  negotiatedCipherSuite!: string | null;
}

/** The latest TLS profile of a host endpoint, written by scan ingestion. */
@Entity('endpoint_tls_profiles')
export class TlsProfileEntity extends TlsProfileColumns {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'endpoint_tls_profiles_pkey' })
  endpointId!: string;

  @OneToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_tls_profiles_endpoint_id_fkey' })
  endpoint?: EndpointEntity;
}
