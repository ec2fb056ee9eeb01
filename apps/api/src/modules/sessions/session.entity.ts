import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** How a session began. */
export type SignInMethod = 'password' | 'oidc';

/**
 * One signed-in session: the JWT names it (`sid`), and the JWT is accepted only while its row
 * exists. Deleting rows is how sessions end: logout, a password change, a disabled account
 * (docs/api-contract.md section 10).
 */
@Entity('sessions')
@Check('sessions_method_check', `method IN ('password', 'oidc')`)
export class SessionEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'sessions_pkey' })
  id!: string;

  @Index('sessions_user_id_idx')
  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sessions_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text' })
  method!: SignInMethod;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** The JWT's `exp`: past it the row is only waiting for the nightly purge. */
  @Index('sessions_expires_at_idx')
  @Column({ type: 'timestamptz' })
  expiresAt!: Date;
}
