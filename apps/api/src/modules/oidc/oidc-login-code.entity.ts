import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/**
 * The one-time code an OIDC sign-in ends with: the browser carries it to the web interface, which
 * exchanges it once, within 60 seconds, for a session (docs/api-contract.md section 9). Only its
 * SHA-256 is stored, with that of the flow state in the cookie of the browser that started the
 * sign-in: no other browser can exchange it.
 */
@Entity('oidc_login_codes')
export class OidcLoginCodeEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'oidc_login_codes_pkey' })
  codeHash!: string;

  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oidc_login_codes_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'text' })
  flowHash!: string;
}
