import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Failed sign-ins counted per key (`account:<client address>/<e-mail>` or `address:<client address>`) in a fixed
 * window that starts at the first failure. In PostgreSQL so that every replica sees the same
 * counts (docs/api-contract.md section 10).
 */
@Entity('login_throttle')
export class LoginThrottleEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'login_throttle_pkey' })
  key!: string;

  @Column({ type: 'timestamptz' })
  windowStartedAt!: Date;

  @Column({ type: 'integer' })
  attempts!: number;
}
