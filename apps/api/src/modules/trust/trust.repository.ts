import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { type CertificateSummary, SUMMARY_COLUMNS } from '../certificates/certificates.repository';

export interface RootStoreRow {
  id: string;
  name: string;
  anchorCount: number;
  updatedAt: Date | null;
  source: string | null;
}

@Injectable()
export class TrustRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  listStores(): Promise<RootStoreRow[]> {
    return this.dataSource.query<RootStoreRow[]>(
      `SELECT s.id, s.name, s.updated_at AS "updatedAt", s.source, count(a.fingerprint)::int AS "anchorCount"
         FROM root_stores s LEFT JOIN root_store_anchors a ON a.store_id = s.id
        GROUP BY s.id ORDER BY array_position(ARRAY['mozilla','apple','microsoft','chrome'], s.id)`,
    );
  }

  async findStore(id: string): Promise<RootStoreRow | null> {
    return (await this.listStores()).find((store) => store.id === id) ?? null;
  }

  async anchorsPage(storeId: string, window: { limit: number; offset: number }): Promise<{ rows: CertificateSummary[]; total: number }> {
    const [rows, counted] = await Promise.all([
      this.dataSource.query<CertificateSummary[]>(
        `SELECT ${SUMMARY_COLUMNS} FROM root_store_anchors a JOIN certificates c ON c.fingerprint = a.fingerprint
          WHERE a.store_id = $1 ORDER BY c.common_name NULLS LAST, c.fingerprint LIMIT $2 OFFSET $3`,
        [storeId, window.limit, window.offset],
      ),
      this.dataSource.query<{ total: number }[]>('SELECT count(*)::int AS total FROM root_store_anchors WHERE store_id = $1', [storeId]),
    ]);
    return { rows, total: counted[0].total };
  }

  /** Locks the store's row; true when it was never filled (no update time, no anchors). */
  async claimEmptyStore(storeId: string, transaction: Transaction): Promise<boolean> {
    const rows = await transaction.query<{ empty: boolean }[]>(
      `SELECT (s.updated_at IS NULL AND NOT EXISTS (SELECT 1 FROM root_store_anchors a WHERE a.store_id = s.id)) AS empty
         FROM root_stores s WHERE s.id = $1 FOR UPDATE`,
      [storeId],
    );
    return rows[0]?.empty ?? false;
  }

  /**
   * Locks every store's row until the transaction ends: refreshes and imports on any replica then
   * replace the anchor sets one after the other, never interleaved. Taken before certificates are
   * written, in a fixed order, so it cannot deadlock with the first-start seed.
   */
  async lockStores(transaction: Transaction): Promise<void> {
    await transaction.query('SELECT id FROM root_stores ORDER BY id FOR UPDATE');
  }

  /** Replaces a store's anchor set in the caller's transaction: all or nothing. */
  async replaceAnchors(storeId: string, fingerprints: string[], source: string, at: Date, transaction: Transaction): Promise<void> {
    await transaction.query('DELETE FROM root_store_anchors WHERE store_id = $1', [storeId]);
    await transaction.query(`INSERT INTO root_store_anchors (store_id, fingerprint) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [
      storeId,
      fingerprints,
    ]);
    await transaction.query('UPDATE root_stores SET updated_at = $2, source = $3 WHERE id = $1', [storeId, at, source]);
  }
}
