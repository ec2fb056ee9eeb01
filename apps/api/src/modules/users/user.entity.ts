import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Role } from '../../common/auth/permissions';

@Entity('users')
@Index('users_oidc_identity_key', ['oidcIssuer', 'oidcSubject'], { unique: true })
@Check('users_role_check', `role IN ('viewer', 'operator', 'admin')`)
export class UserEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'users_pkey' })
  id!: string;

  /** Stored lower-cased, so uniqueness is case-insensitive. */
  @Index('users_email_key', { unique: true })
  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text', default: '' })
  name!: string;

  @Column({ type: 'text' })
  role!: Role;

  /** Null for users who sign in only through OIDC. */
  @Column({ type: 'text', nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /** The identity provider's issuer and subject once the user has signed in through OIDC (docs/api-contract.md section 9). */
  @Column({ type: 'text', nullable: true })
  oidcIssuer!: string | null;

  @Column({ type: 'text', nullable: true })
  oidcSubject!: string | null;

  @Column({ type: 'boolean', default: true })
  notify!: boolean;

  @Column({ type: 'text', array: true, default: '{}' })
  tagSubscriptions!: string[];

  /** SHA-256 of the calendar feed token; null means no feed. */
  @Index('users_calendar_token_hash_key', { unique: true })
  @Column({ type: 'text', nullable: true })
  calendarTokenHash!: string | null;

  /** Set with the session row at every sign-in, password or OIDC; null until the first. */
  @Column({ type: 'timestamptz', nullable: true })
  lastSignInAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
