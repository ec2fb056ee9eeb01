import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One CRL distribution point as last fetched: fetched again only once `nextFetchAt` has passed
 * (its nextUpdate, at least an hour and at most a day away). Its revoked serials are rows of
 * revoked_serials, kept only while the CRL verified.
 */
@Entity('revocation_lists')
export class RevocationListEntity {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'revocation_lists_pkey' })
  url!: string;

  @Column({ type: 'timestamptz' })
  fetchedAt!: Date;

  @Column({ type: 'timestamptz' })
  nextFetchAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  thisUpdate!: Date | null;

  /** Past it, the list no longer says anything: its certificates read `unknown`. */
  @Column({ type: 'timestamptz', nullable: true })
  nextUpdate!: Date | null;

  /** Why the list cannot be used (fetch, parse or signature), in one sentence; null when it verified. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
