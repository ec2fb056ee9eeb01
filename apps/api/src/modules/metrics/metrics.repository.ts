import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * One current link: its label set as the text format writes it (`{endpoint_id="...",...}`) and
 * its notAfter and notBefore in seconds since the epoch, as text.
 */
export interface CurrentLinkSeries {
  labels: string;
  notAfter: string;
  notBefore: string;
}

/** One endpoint scanned at least once: label set, last scan in epoch seconds, and `1` or `0` for its latest outcome. */
export interface ScannedEndpointSeries {
  labels: string;
  lastScan: string;
  success: '1' | '0';
}

export interface ScannerLastSeen {
  name: string;
  /** Null for a scanner that never called the API. */
  lastSeenAt: number | null;
}

/** A free-text column as a label value of the text format: backslash, double quote and line feed escaped. */
const labelValue = (column: string) => `replace(replace(replace(${column}, '\\', '\\\\'), '"', '\\"'), E'\\n', '\\n')`;

/**
 * The inventory as the metrics scrape reads it (docs/api-contract.md section 12): one set-based
 * query per table family, whatever the number of series.
 *
 * PostgreSQL writes each label set and value as text, ready to paste into a sample line: at
 * 100,000 links that is as fast to fetch as the raw columns, and saves the API building 100,000
 * objects' worth of strings (tools/bench/metrics-scrape). float8's text form is the shortest that
 * reads back exactly, which the format accepts. Ids, types, uses and fingerprints never need escaping.
 */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every current link; disabled and scan-exempt endpoints included, as in the expiry lists. */
  findCurrentLinkSeries(): Promise<CurrentLinkSeries[]> {
    return this.dataSource.query<CurrentLinkSeries[]>(
      `SELECT '{endpoint_id="' || l.endpoint_id || '",endpoint_name="' || ${labelValue('e.name')} || '",endpoint_type="' || e.type ||
              '",cert_use="' || l.cert_use || '",fingerprint="' || l.fingerprint ||
              '",common_name="' || ${labelValue("coalesce(c.common_name, '')")} || '"}' AS labels,
              extract(epoch FROM l.not_after)::float8::text AS "notAfter", extract(epoch FROM c.not_before)::float8::text AS "notBefore"
         FROM endpoint_certificates l
         JOIN endpoints e ON e.id = l.endpoint_id
         JOIN certificates c ON c.fingerprint = l.fingerprint
        WHERE l.is_current`,
    );
  }

  /** Endpoints with a last scan; the latest scan succeeded when no error run is open (errorSince null). */
  findScannedEndpointSeries(): Promise<ScannedEndpointSeries[]> {
    return this.dataSource.query<ScannedEndpointSeries[]>(
      `SELECT '{endpoint_id="' || id || '",endpoint_name="' || ${labelValue('name')} || '",endpoint_type="' || type || '"}' AS labels,
              extract(epoch FROM last_scanned_at)::float8::text AS "lastScan", CASE WHEN error_since IS NULL THEN '1' ELSE '0' END AS success
         FROM endpoints
        WHERE last_scanned_at IS NOT NULL`,
    );
  }

  findScannersLastSeen(): Promise<ScannerLastSeen[]> {
    return this.dataSource.query<ScannerLastSeen[]>(
      `SELECT name, extract(epoch FROM last_used_at)::float8 AS "lastSeenAt" FROM scanners ORDER BY name`,
    );
  }
}
