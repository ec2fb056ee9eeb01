import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The `state` of every OIDC callback already finished, until its flow cookie would have expired
 * anyway: a replayed callback is refused on whichever replica it reaches. Only its SHA-256 is stored.
 */
@Entity('oidc_used_states')
export class OidcUsedStateEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'oidc_used_states_pkey' })
  stateHash!: string;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;
}
