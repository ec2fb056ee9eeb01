import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { EndpointEntity } from './endpoint.entity';

export interface TlsVersionSupport {
  version: 'SSLv3' | 'TLSv1.0' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  supported: boolean;
  cipherSuites: string[];
}

/** The latest TLS profile of a host endpoint, written by scan ingestion. */
@Entity('endpoint_tls_profiles')
export class TlsProfileEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'endpoint_tls_profiles_pkey' })
  endpointId!: string;

  @OneToOne(() => EndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'endpoint_tls_profiles_endpoint_id_fkey' })
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
