import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One of the four public root stores; `updatedAt` null until a refresh (or the first-start seed) filled it. */
@Entity('root_stores')
export class RootStoreEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'root_stores_pkey' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'timestamptz', nullable: true })
  updatedAt!: Date | null;

  /** Where the current anchor set came from: a URL, `upload`, or `node:bundled` for the first-start seed. */
  @Column({ type: 'text', nullable: true })
  source!: string | null;
}
