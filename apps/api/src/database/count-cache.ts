import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { COUNTED_WRITES_LOCK_KEY } from './advisory-lock-keys';
import type { SqlQuery } from './row-stream';

/** The tables with a change version (migration 1795320000000), and the sequence that holds it. */
const VERSION_SEQUENCES = {
  endpoints: 'endpoints_count_version',
  certificates: 'certificates_count_version',
} as const;

export type CountedTable = keyof typeof VERSION_SEQUENCES;

/** Distinct counts remembered; the least recently used is forgotten first. */
const MAX_ENTRIES = 1000;

interface Entry {
  version: string;
  total: number;
}

/**
 * Exact `totalCount`s without counting 100,000 rows on every page (docs/performance.md, "Counts").
 * A count is remembered with the change versions of the tables it reads; it is answered again only
 * while those versions stand. Every write that could change it bumps a version (the triggers of
 * migration 1795320000000), on any replica, so the cache is as exact as counting every time.
 *
 * The one subtle case is a write in flight: it bumps its version before it commits. Writes hold
 * COUNTED_WRITES_LOCK_KEY shared until they commit, and the version is read together with an
 * exclusive try of that lock: when the try succeeds no write is in flight, so every bump seen is
 * committed and the count that follows (a later snapshot) includes at least those writes. When it
 * fails, the count is made and answered, but not remembered. The version read is one cheap round
 * trip, made beside the page's own query.
 */
@Injectable()
export class CountCache {
  private readonly entries = new Map<string, Entry>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `count` must return one row with an integer `total`, and read only counted columns of `tables`. */
  async count(count: SqlQuery, tables: readonly CountedTable[]): Promise<number> {
    const key = `${count.text}\u0000${JSON.stringify(count.values)}`;
    const { version, quiet } = await this.readVersion(tables);
    const remembered = this.entries.get(key);
    if (remembered?.version === version) {
      this.remember(key, remembered);
      return remembered.total;
    }
    const rows = await this.dataSource.query<{ total: number }[]>(count.text, count.values);
    const total = rows[0].total;
    if (quiet) this.remember(key, { version, total });
    return total;
  }

  private async readVersion(tables: readonly CountedTable[]): Promise<{ version: string; quiet: boolean }> {
    const versions = tables.map((table) => `(SELECT last_value FROM ${VERSION_SEQUENCES[table]})::text`).join(` || ':' || `);
    const rows = await this.dataSource.query<{ quiet: boolean; version: string }[]>(
      `SELECT pg_try_advisory_xact_lock($1) AS quiet, ${versions} AS version`,
      [COUNTED_WRITES_LOCK_KEY],
    );
    return rows[0];
  }

  /** A Map keeps insertion order: re-inserting makes the entry the most recent. */
  private remember(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
