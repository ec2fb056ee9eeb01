import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { StarttlsProtocol, TlsProfile, WorkItem } from '@certkeeper/domain';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import type { Transaction } from '../../database/transaction';
import type { EndpointType } from '../endpoints/endpoint.entity';

export interface Assignment {
  type: EndpointType;
  assigned: boolean;
}

export interface HistoryRow {
  resultId: string;
  endpointId: string;
  scannerId: string;
  scannedAt: Date;
  success: boolean;
  error: string | null;
  resolvedIp: string | null;
  fingerprint: string | null;
  tlsVersion: string | null;
  chainComplete: boolean | null;
}

const PROFILE_MAX_AGE = '1 day';

@Injectable()
export class IngestRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Where the pool connects: ScanWorkSignal opens its one LISTEN connection, outside the pool, there. */
  databaseUrl(): string | undefined {
    return (this.dataSource.options as PostgresConnectionOptions).url;
  }

  /**
   * A scanner's work: enabled, not scan-exempt host and saml endpoints pinned to it, plus the
   * unpinned ones when it is the default. Manual endpoints never. `dueOnly`: only the work due
   * now, endpoints never scanned and those with a pending scan request (index endpoints_scan_due_idx).
   */
  async findWork(scannerId: string, isDefault: boolean, now: Date, dueOnly = false): Promise<WorkItem[]> {
    const rows = await this.dataSource.query<
      {
        id: string;
        type: 'host' | 'saml';
        dnsName: string;
        port: number;
        ipAddress: string | null;
        starttls: StarttlsProtocol | null;
        metadataUrl: string;
        profileDue: boolean;
      }[]
    >(
      `SELECT e.id, e.type, e.dns_name AS "dnsName", e.port, e.ip_address AS "ipAddress", e.starttls, e.metadata_url AS "metadataUrl",
              (p.scanned_at IS NULL OR p.scanned_at < $3::timestamptz - interval '${PROFILE_MAX_AGE}') AS "profileDue"
         FROM endpoints e LEFT JOIN endpoint_tls_profiles p ON p.endpoint_id = e.id
        WHERE e.enabled AND NOT e.scan_exempt AND e.type IN ('host', 'saml')
          AND (e.scanner_id = $1 OR (e.scanner_id IS NULL AND $2))
          AND (NOT $4 OR e.last_scanned_at IS NULL OR e.scan_requested_at IS NOT NULL)
        ORDER BY e.id`,
      [scannerId, isDefault, now, dueOnly],
    );
    return rows.map((row) =>
      row.type === 'host'
        ? {
            endpointId: row.id,
            type: 'host',
            dnsName: row.dnsName,
            port: row.port,
            ipAddress: row.ipAddress,
            tlsProfileDue: row.profileDue,
            starttls: row.starttls,
          }
        : { endpointId: row.id, type: 'saml', metadataUrl: row.metadataUrl },
    );
  }

  /** For each endpoint id that exists: its type and whether the scanner may report on it. */
  async findAssignments(endpointIds: string[], scannerId: string, isDefault: boolean): Promise<Map<string, Assignment>> {
    if (endpointIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ id: string; type: EndpointType; assigned: boolean }[]>(
      `SELECT id, type, (type IN ('host', 'saml') AND (scanner_id = $2 OR (scanner_id IS NULL AND $3))) AS assigned
         FROM endpoints WHERE id = ANY($1::uuid[])`,
      [endpointIds, scannerId, isDefault],
    );
    return new Map(rows.map((row) => [row.id, { type: row.type, assigned: row.assigned }]));
  }

  /**
   * Records the run and applies its outcome to the endpoint in one statement (see applyOutcome).
   * `fresh` is false for a result id seen before (nothing changes then); `latest` is false for a
   * result older than the endpoint's latest applied run.
   */
  async recordRun(row: HistoryRow, transaction: Transaction): Promise<{ fresh: boolean; latest: boolean }> {
    const [result] = await transaction.query<{ fresh: boolean; latest: boolean }[]>(
      `WITH run AS (
         INSERT INTO scan_history (result_id, endpoint_id, scanner_id, scanned_at, success, error, resolved_ip, fingerprint, tls_version, chain_complete)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (result_id) DO NOTHING RETURNING id
       ), outcome AS (
         UPDATE endpoints
            SET last_scanned_at = $4,
                last_scan_error = $11,
                -- A scan request is answered by a result ingested after it was made (one clock: the database's).
                scan_requested_at = CASE WHEN scan_requested_at <= now() THEN NULL ELSE scan_requested_at END,
                error_since = CASE WHEN $11::text IS NULL THEN NULL ELSE coalesce(error_since, $4) END
          WHERE id = $2 AND EXISTS (SELECT 1 FROM run) AND (last_scanned_at IS NULL OR last_scanned_at <= $4)
          RETURNING id
       )
       SELECT EXISTS (SELECT 1 FROM run) AS fresh, EXISTS (SELECT 1 FROM outcome) AS latest`,
      [
        row.resultId,
        row.endpointId,
        row.scannerId,
        row.scannedAt,
        row.success,
        row.error,
        row.resolvedIp,
        row.fingerprint,
        row.tlsVersion,
        row.chainComplete,
        row.success ? null : row.error,
      ],
    );
    return result;
  }

  /** Stores the latest profile, and a history row when it differs from the previous one. */
  async saveTlsProfile(endpointId: string, profile: TlsProfile, scannedAt: Date, transaction: Transaction): Promise<void> {
    const previous = await transaction.query<
      { versions: unknown; negotiatedVersion: string | null; negotiatedCipherSuite: string | null }[]
    >(
      `SELECT versions, negotiated_version AS "negotiatedVersion", negotiated_cipher_suite AS "negotiatedCipherSuite"
         FROM endpoint_tls_profiles WHERE endpoint_id = $1`,
      [endpointId],
    );
    const changed =
      previous.length === 0 ||
      JSON.stringify(previous[0].versions) !== JSON.stringify(profile.versions) ||
      previous[0].negotiatedVersion !== profile.negotiatedVersion ||
      previous[0].negotiatedCipherSuite !== profile.negotiatedCipherSuite;
    const values = [endpointId, scannedAt, JSON.stringify(profile.versions), profile.negotiatedVersion, profile.negotiatedCipherSuite];
    if (changed) {
      await transaction.query(
        `INSERT INTO endpoint_tls_profile_history (endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite) VALUES ($1, $2, $3, $4, $5)`,
        values,
      );
    }
    await transaction.query(
      `INSERT INTO endpoint_tls_profiles (endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (endpoint_id) DO UPDATE SET scanned_at = excluded.scanned_at, versions = excluded.versions,
              negotiated_version = excluded.negotiated_version, negotiated_cipher_suite = excluded.negotiated_cipher_suite`,
      values,
    );
  }

  /** Keeps each distinct document once. */
  async saveSamlDocument(digest: string, document: string, at: Date, transaction: Transaction): Promise<void> {
    await transaction.query(
      `INSERT INTO saml_documents (digest, document, bytes, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (digest) DO UPDATE SET last_seen_at = greatest(saml_documents.last_seen_at, excluded.last_seen_at)`,
      [digest, document, Buffer.byteLength(document, 'utf8'), at],
    );
  }

  async saveSamlMetadata(endpointId: string, metadata: Record<string, unknown>, transaction: Transaction): Promise<void> {
    await transaction.query('UPDATE endpoints SET saml_metadata = $2 WHERE id = $1', [endpointId, JSON.stringify(metadata)]);
  }
}
