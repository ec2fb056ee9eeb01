import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { inOneSnapshot, type RowHandler } from '../../database/pool';

/** The families read from the inventory at every scrape, in the order they are written. */
export const INVENTORY_FAMILIES = [
  'certkeeper_certificate_not_after_seconds',
  'certkeeper_certificate_not_before_seconds',
  'certkeeper_endpoint_last_scan_timestamp_seconds',
  'certkeeper_endpoint_scan_success',
] as const;
export type InventoryFamily = (typeof INVENTORY_FAMILIES)[number];

export interface ScannerLastSeen {
  name: string;
  /** Null for a scanner that never called the API. */
  lastSeenAt: number | null;
}

/** A free-text column as a label value of the text format: backslash, double quote and line feed escaped. */
const labelValue = (column: string) => `replace(replace(replace(${column}, '\\', '\\\\'), '"', '\\"'), E'\\n', '\\n')`;

/** Every current link (disabled and scan-exempt endpoints included, as in the expiry lists), with `value` in seconds. */
const currentLinkLines = (value: string) =>
  `SELECT $1::text || '{endpoint_id="' || l.endpoint_id || '",endpoint_name="' || ${labelValue('e.name')} || '",endpoint_type="' || e.type ||
          '",cert_use="' || l.cert_use || '",fingerprint="' || l.fingerprint ||
          '",common_name="' || ${labelValue("coalesce(c.common_name, '')")} || '"} ' || date_part('epoch', ${value})::text || E'\\n' AS line
     FROM endpoint_certificates l
     JOIN endpoints e ON e.id = l.endpoint_id
     JOIN certificates c ON c.fingerprint = l.fingerprint
    WHERE l.is_current`;

/** Endpoints with a last scan; the latest scan succeeded when no error run is open (errorSince null). */
const scannedEndpointLines = (value: string) =>
  `SELECT $1::text || '{endpoint_id="' || id || '",endpoint_name="' || ${labelValue('name')} || '",endpoint_type="' || type || '"} ' ||
          ${value} || E'\\n' AS line
     FROM endpoints
    WHERE last_scanned_at IS NOT NULL`;

const FAMILY_QUERIES: Record<InventoryFamily, string> = {
  certkeeper_certificate_not_after_seconds: currentLinkLines('l.not_after'),
  certkeeper_certificate_not_before_seconds: currentLinkLines('c.not_before'),
  certkeeper_endpoint_last_scan_timestamp_seconds: scannedEndpointLines(`date_part('epoch', last_scanned_at)::text`),
  certkeeper_endpoint_scan_success: scannedEndpointLines(`CASE WHEN error_since IS NULL THEN '1' ELSE '0' END`),
};

/** Reads one family's sample lines, handing each over as it arrives (see RowHandler). */
export type SampleLineReader = (family: InventoryFamily, onLine: RowHandler<string>) => Promise<void>;

/**
 * The inventory as the metrics scrape reads it (docs/api-contract.md section 12): one set-based
 * query per family, whatever the number of series.
 *
 * PostgreSQL writes each sample line whole (name, label set with its escaping, value), ready to
 * paste into the exposition: at 100,000 links that is as fast to fetch as the raw columns, and
 * spares the API building those strings (tools/bench/metrics-scrape). Times are `date_part`'s
 * float8: `extract` gives the same digits through numeric, at 80 ms more per 100,000 values.
 * float8's text form is the shortest that reads back exactly, which the format accepts. Ids,
 * types, uses and fingerprints never need escaping.
 */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Gives `read` the families' lines from one snapshot of the inventory, so that a link's notAfter
   * and notBefore, read by two queries, are those of the same moment.
   */
  inOneReading<R>(read: (readFamily: SampleLineReader) => Promise<R>): Promise<R> {
    return inOneSnapshot(this.dataSource, (forEachRow) =>
      read((family, onLine) => forEachRow<{ line: string }>({ text: FAMILY_QUERIES[family], values: [family] }, (row) => onLine(row.line))),
    );
  }

  findScannersLastSeen(): Promise<ScannerLastSeen[]> {
    return this.dataSource.query<ScannerLastSeen[]>(
      `SELECT name, extract(epoch FROM last_used_at)::float8 AS "lastSeenAt" FROM scanners ORDER BY name`,
    );
  }
}
