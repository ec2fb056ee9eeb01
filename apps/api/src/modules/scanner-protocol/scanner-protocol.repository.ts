import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { StarttlsProtocol, TlsProfile, WorkItem } from '@certkeeper/domain/protocol';
import { DataSource } from 'typeorm';
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
export class ScannerProtocolRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
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

  /**
   * For each endpoint id that exists: its type and whether the scanner may report on it (its own
   * endpoints, and those with no scanner when it is the default one).
   */
  async findAssignments(endpointIds: string[], scannerId: string): Promise<Map<string, Assignment>> {
    if (endpointIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ id: string; type: EndpointType; assigned: boolean }[]>(
      `SELECT id, type,
              (type IN ('host', 'saml')
               AND (scanner_id = $2 OR (scanner_id IS NULL AND coalesce((SELECT is_default FROM scanners WHERE id = $2), false)))) AS assigned
         FROM endpoints WHERE id = ANY($1::uuid[])`,
      [endpointIds, scannerId],
    );
    return new Map(rows.map((row) => [row.id, { type: row.type, assigned: row.assigned }]));
  }

  /**
   * Locks the given endpoints' rows for the rest of the transaction, in id order so that two
   * batches sharing endpoints never deadlock; the same lock LinksService takes for a sighting.
   * Returns the endpoints that still exist, each with whether its scans are failing.
   */
  async lockEndpoints(endpointIds: string[], transaction: Transaction): Promise<Map<string, { failing: boolean }>> {
    const rows = await transaction.query<{ id: string; failing: boolean }[]>(
      `SELECT id, error_since IS NOT NULL AS failing FROM endpoints WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      [endpointIds],
    );
    return new Map(rows.map(({ id, failing }) => [id, { failing }]));
  }

  /** Which of these certificates are stored. */
  async findStoredFingerprints(fingerprints: string[], transaction: Transaction): Promise<Set<string>> {
    if (fingerprints.length === 0) return new Set();
    const rows = await transaction.query<{ fingerprint: string }[]>(
      `SELECT fingerprint FROM certificates WHERE fingerprint = ANY($1::text[])`,
      [fingerprints],
    );
    return new Set(rows.map((row) => row.fingerprint));
  }

  /**
   * Records runs and applies their outcomes to their endpoints, in one statement however many
   * there are; each endpoint at most once per call (a caller with several runs of one endpoint
   * calls again, oldest first). Returns, by endpoint id, the runs that were fresh (a result id
   * seen before, even earlier in the same call, changes nothing) with `latest`: false for a run
   * older than its endpoint's latest applied run.
   */
  async recordRuns(rows: HistoryRow[], transaction: Transaction): Promise<Map<string, { latest: boolean }>> {
    if (rows.length === 0) return new Map();
    const applied = await transaction.query<{ endpointId: string; latest: boolean }[]>(
      `WITH incoming AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::boolean[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::boolean[])
           AS r(result_id, endpoint_id, scanner_id, scanned_at, success, error, resolved_ip, fingerprint, tls_version, chain_complete)
       ), run AS (
         INSERT INTO scan_history (result_id, endpoint_id, scanner_id, scanned_at, success, error, resolved_ip, fingerprint, tls_version, chain_complete)
         SELECT * FROM incoming
         ON CONFLICT (result_id) DO NOTHING RETURNING endpoint_id, scanned_at, success, error
       ), outcome AS (
         UPDATE endpoints e
            SET last_scanned_at = run.scanned_at,
                last_scan_error = CASE WHEN run.success THEN NULL ELSE run.error END,
                -- A scan request is answered by a result ingested after it was made (one clock: the database's).
                scan_requested_at = CASE WHEN e.scan_requested_at <= now() THEN NULL ELSE e.scan_requested_at END,
                error_since = CASE WHEN run.success THEN NULL ELSE coalesce(e.error_since, run.scanned_at) END
           FROM run
          WHERE e.id = run.endpoint_id AND (e.last_scanned_at IS NULL OR e.last_scanned_at <= run.scanned_at)
          RETURNING e.id
       )
       SELECT run.endpoint_id AS "endpointId", outcome.id IS NOT NULL AS latest FROM run LEFT JOIN outcome ON outcome.id = run.endpoint_id`,
      [
        rows.map((row) => row.resultId),
        rows.map((row) => row.endpointId),
        rows.map((row) => row.scannerId),
        rows.map((row) => row.scannedAt),
        rows.map((row) => row.success),
        rows.map((row) => row.error),
        rows.map((row) => row.resolvedIp),
        rows.map((row) => row.fingerprint),
        rows.map((row) => row.tlsVersion),
        rows.map((row) => row.chainComplete),
      ],
    );
    return new Map(applied.map((row) => [row.endpointId, { latest: row.latest }]));
  }

  /**
   * Stores the latest profile of each endpoint (each at most once per call), and a history row
   * where it differs from the previous one. One statement: every part reads the profiles as they
   * were before it. Answers the endpoints whose profile changed.
   */
  async saveTlsProfiles(
    profiles: { endpointId: string; profile: TlsProfile; scannedAt: Date }[],
    transaction: Transaction,
  ): Promise<string[]> {
    if (profiles.length === 0) return [];
    const changed = await transaction.query<{ endpointId: string }[]>(
      `WITH incoming AS (
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::jsonb[], $4::text[], $5::text[])
           AS p(endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite)
       ), changed AS (
         INSERT INTO endpoint_tls_profile_history (endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite)
         SELECT p.* FROM incoming p LEFT JOIN endpoint_tls_profiles previous ON previous.endpoint_id = p.endpoint_id
          WHERE previous.endpoint_id IS NULL
             OR (previous.versions, previous.negotiated_version, previous.negotiated_cipher_suite)
                IS DISTINCT FROM (p.versions, p.negotiated_version, p.negotiated_cipher_suite)
         RETURNING endpoint_id
       ), saved AS (
         INSERT INTO endpoint_tls_profiles (endpoint_id, scanned_at, versions, negotiated_version, negotiated_cipher_suite)
         SELECT * FROM incoming
         ON CONFLICT (endpoint_id) DO UPDATE SET scanned_at = excluded.scanned_at, versions = excluded.versions,
                negotiated_version = excluded.negotiated_version, negotiated_cipher_suite = excluded.negotiated_cipher_suite
       )
       SELECT endpoint_id AS "endpointId" FROM changed`,
      [
        profiles.map((p) => p.endpointId),
        profiles.map((p) => p.scannedAt),
        profiles.map((p) => JSON.stringify(p.profile.versions)),
        profiles.map((p) => p.profile.negotiatedVersion),
        profiles.map((p) => p.profile.negotiatedCipherSuite),
      ],
    );
    return changed.map((row) => row.endpointId);
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
