import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity';
import { DiscoveryNetworkEntity } from './network.entity';
import { DiscoverySweepEntity } from './sweep.entity';

/** What a person decided about a discovered service; `tracked` is derived when read (docs/api-contract.md section 8). */
export type InboxDisposition = 'new' | 'promoted' | 'dismissed';

/** One TLS service a sweep found: a row per (network, address, port), updated by later sweeps. */
@Entity('discovery_inbox')
@Check('discovery_inbox_disposition_check', `disposition IN ('new', 'promoted', 'dismissed')`)
@Index('discovery_inbox_service_key', ['networkId', 'address', 'port'], { unique: true })
@Index('discovery_inbox_last_seen_idx', ['lastSeenAt', 'id'])
export class DiscoveryInboxEntryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'discovery_inbox_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  networkId!: string;

  @ManyToOne(() => DiscoveryNetworkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'network_id', foreignKeyConstraintName: 'discovery_inbox_network_id_fkey' })
  network?: DiscoveryNetworkEntity;

  /** Normalised (libs/domain normaliseAddress). */
  @Column({ type: 'text' })
  address!: string;

  @Column({ type: 'integer' })
  port!: number;

  @Column({ type: 'text', nullable: true })
  reverseName!: string | null;

  /** The reverse-DNS name, then the leaf's DNS SANs. */
  @Column({ type: 'text', array: true, default: '{}' })
  hostnames!: string[];

  /** The leaf's SHA-256; null when the presented chain could not be parsed. */
  @Index('discovery_inbox_fingerprint_idx')
  @Column({ type: 'text', collation: 'C', nullable: true })
  fingerprint!: string | null;

  @Column({ type: 'text', default: 'new' })
  disposition!: InboxDisposition;

  /** The endpoint a promote created; null again when that endpoint is deleted. */
  @Index('discovery_inbox_endpoint_id_idx')
  @Column({ type: 'uuid', nullable: true })
  endpointId!: string | null;

  @ManyToOne(() => EndpointEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'discovery_inbox_endpoint_id_fkey' })
  endpoint?: EndpointEntity;

  /**
   * A host endpoint whose last scan reached this address on this port, found when the service was
   * last reported. Endpoints naming the address outright are found when the inbox is read.
   */
  @Index('discovery_inbox_tracked_endpoint_id_idx')
  @Column({ type: 'uuid', nullable: true })
  trackedEndpointId!: string | null;

  @ManyToOne(() => EndpointEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'tracked_endpoint_id', foreignKeyConstraintName: 'discovery_inbox_tracked_endpoint_id_fkey' })
  trackedEndpoint?: EndpointEntity;

  /** The certificate that was there when the entry was dismissed: another one brings the entry back. */
  @Column({ type: 'text', collation: 'C', nullable: true })
  dismissedFingerprint!: string | null;

  @Column({ type: 'timestamptz' })
  firstSeenAt!: Date;

  @Column({ type: 'timestamptz' })
  lastSeenAt!: Date;

  @Column({ type: 'uuid', nullable: true })
  lastSweepId!: string | null;

  @ManyToOne(() => DiscoverySweepEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'last_sweep_id', foreignKeyConstraintName: 'discovery_inbox_last_sweep_id_fkey' })
  lastSweep?: DiscoverySweepEntity;
}
