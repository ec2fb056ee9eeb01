import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Index('api_keys_user_id_idx')
  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text' })
  name!: string;

  /** The public `<keyId>` part of `stx_p_<keyId>_<secret>`, used to find the row. */
  @Index('api_keys_key_id_key', { unique: true })
  @Column({ type: 'text' })
  keyId!: string;

  /** SHA-256 of the secret part; the secret itself is shown once and never stored. */
  @Column({ type: 'text' })
  secretHash!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
