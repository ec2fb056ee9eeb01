import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from './notifications';
import type { SqlQuery } from './row-stream';

/** The channel migration 1795320000000 notifies, with the table's name, when a counted row changes. */
export const COUNT_CHANNEL = 'certkeeper_counts';

/** The tables whose counted columns notify (migrations 1795320000000, 1796400000000 for the links' renewals, 1796607200000 for the findings' codes, 1796800000000 for the links' currency and use). */
const COUNTED_TABLES = ['endpoints', 'certificates', 'endpoint_certificates', 'endpoint_findings'] as const;
export type CountedTable = (typeof COUNTED_TABLES)[number];

/** Distinct counts remembered; the least recently used is forgotten first. */
const MAX_ENTRIES = 1000;

interface Entry {
  tables: readonly CountedTable[];
  total: number;
}

/**
 * `totalCount`s without counting 100,000 rows on every page (docs/performance.md, "Counts"). A
 * count is remembered until a write could change it:
 * - a write anywhere (another replica, psql) notifies every process at its commit, and the counts
 *   over that table are forgotten within milliseconds;
 * - a request on this process that may have written forgets them all before its response goes
 *   out (ForgetAfterWrites), so a client always sees its own change;
 * - while the listening connection is down nothing is remembered, and a count in flight when a
 *   notification for one of its tables arrives is answered but not kept.
 * Counts that depend on the clock (an expiry window) must not come here: nothing notifies as time passes.
 */
@Injectable()
export class CountCache {
  private readonly entries = new Map<string, Entry>();
  /** Per table, moves on every notification, so a count that straddles one is not kept. */
  private readonly generations = new Map<CountedTable, number>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly notifications: DatabaseNotifications,
  ) {
    notifications.subscribe(COUNT_CHANNEL, {
      notified: (table) => this.forgetTable(table as CountedTable),
      resync: () => this.forgetAll(),
    });
    notifications.forgetAfterWrites(() => this.forgetAll());
  }

  /** `count` must return one row with an integer `total`, and read only counted columns of `tables`. */
  async count(count: SqlQuery, tables: readonly CountedTable[]): Promise<number> {
    const key = `${count.text}\u0000${JSON.stringify(count.values)}`;
    const remembered = this.entries.get(key);
    if (remembered && this.notifications.listening) {
      this.remember(key, remembered);
      return remembered.total;
    }
    const before = this.generationsOf(tables);
    const rows = await this.dataSource.query<{ total: number }[]>(count.text, count.values);
    const total = rows[0].total;
    if (this.notifications.listening && this.generationsOf(tables) === before) this.remember(key, { tables, total });
    return total;
  }

  private generationsOf(tables: readonly CountedTable[]): string {
    return tables.map((table) => this.generations.get(table) ?? 0).join(':');
  }

  private forgetTable(table: CountedTable): void {
    this.generations.set(table, (this.generations.get(table) ?? 0) + 1);
    for (const [key, entry] of this.entries) if (entry.tables.includes(table)) this.entries.delete(key);
  }

  private forgetAll(): void {
    for (const table of COUNTED_TABLES) this.forgetTable(table);
  }

  /** A Map keeps insertion order: re-inserting makes the entry the most recent. */
  private remember(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
