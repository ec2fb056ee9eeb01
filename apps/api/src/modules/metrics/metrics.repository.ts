import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { inOneSnapshot, type RowHandler } from '../../database/pool';

/**
 * The families read from the inventory at every scrape, in the order they are written, by pairs:
 * the two families of a pair share their label sets and come from one query.
 */
export const INVENTORY_PAIRS = [
  { first: 'certkeeper_certificate_not_after_seconds', second: 'certkeeper_certificate_not_before_seconds' },
  { first: 'certkeeper_endpoint_last_scan_timestamp_seconds', second: 'certkeeper_endpoint_scan_success' },
] as const;
export type InventoryPair = (typeof INVENTORY_PAIRS)[number];
export type InventoryFamily = InventoryPair['first'] | InventoryPair['second'];

/**
 * One series of a pair: its label set as the text format writes it (`{endpoint_id="...",...}`),
 * and its value in the first family and in the second, as text.
 */
export interface PairedSeries {
  labels: string;
  first: string;
  second: string;
}

export interface ScannerLastSeen {
  name: string;
  /** Null for a scanner that never called the API. */
  lastSeenAt: number | null;
}

/** A free-text column as a label value of the text format: backslash, double quote and line feed escaped. */
const labelValue = (column: string) => `replace(replace(replace(${column}, '\\', '\\\\'), '"', '\\"'), E'\\n', '\\n')`;

const PAIR_QUERIES: Record<InventoryPair['first'], string> = {
  // Every current link; disabled and scan-exempt endpoints included, as in the expiry lists.
  certkeeper_certificate_not_after_seconds: `
    SELECT '{endpoint_id="' || l.endpoint_id || '",endpoint_name="' || ${labelValue('e.name')} || '",endpoint_type="' || e.type ||
           '",cert_use="' || l.cert_use || '",fingerprint="' || l.fingerprint ||
           '",common_name="' || ${labelValue("coalesce(c.common_name, '')")} || '"}' AS labels,
           date_part('epoch', l.not_after)::text AS first, date_part('epoch', c.not_before)::text AS second
      FROM endpoint_certificates l
      JOIN endpoints e ON e.id = l.endpoint_id
      JOIN certificates c ON c.fingerprint = l.fingerprint
     WHERE l.is_current`,
  // Endpoints with a last scan; the latest scan succeeded when no error run is open (errorSince null).
  certkeeper_endpoint_last_scan_timestamp_seconds: `
    SELECT '{endpoint_id="' || id || '",endpoint_name="' || ${labelValue('name')} || '",endpoint_type="' || type || '"}' AS labels,
           date_part('epoch', last_scanned_at)::text AS first, CASE WHEN error_since IS NULL THEN '1' ELSE '0' END AS second
      FROM endpoints
     WHERE last_scanned_at IS NOT NULL`,
};

/** Reads one pair's series, handing each over as it arrives (see RowHandler). */
export type PairReader = (pair: InventoryPair, onSeries: RowHandler<PairedSeries>) => Promise<void>;

/**
 * The inventory as the metrics scrape reads it (docs/api-contract.md section 12): one set-based
 * query per pair of families, whatever the number of series.
 *
 * PostgreSQL writes each label set (escaping included) and value as text, ready to paste into a
 * sample line: at 100,000 links that is as fast to fetch as the raw columns, and spares the API
 * building those strings (tools/bench/metrics-scrape). Times are `date_part`'s float8: `extract`
 * gives the same digits through numeric, at 80 ms more per 100,000 values. float8's text form is
 * the shortest that reads back exactly, which the format accepts. Ids, types, uses and
 * fingerprints never need escaping.
 */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Gives `read` the pairs' series from one snapshot of the inventory, so that the two queries
   * describe the same moment.
   */
  inOneReading<R>(read: (readPair: PairReader) => Promise<R>): Promise<R> {
    return inOneSnapshot(this.dataSource, (forEachRow) =>
      read((pair, onSeries) => forEachRow<PairedSeries>({ text: PAIR_QUERIES[pair.first], values: [] }, onSeries)),
    );
  }

  findScannersLastSeen(): Promise<ScannerLastSeen[]> {
    return this.dataSource.query<ScannerLastSeen[]>(
      `SELECT name, extract(epoch FROM last_used_at)::float8 AS "lastSeenAt" FROM scanners ORDER BY name`,
    );
  }
}
