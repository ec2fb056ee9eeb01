import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RevokedEntry } from '@certkeeper/domain';
import type { CandidateCertificate } from '../alerts/facts/fact-loader';
import { inSubscriptionScope } from '../expiry/subscription-scope';
import type { CertificateRevocationEntity } from './certificate-revocation.entity';

/** A CRL distribution point some checked certificate names, with the issuer names of those certificates. */
export interface CrlToFetch {
  url: string;
  issuerDnHashes: string[];
}

// Every current, unexpired certificate, with the CRL it is checked against: its first http(s)
// distribution point (docs/api-contract.md section 18). Shared by what is fetched and what is judged.
const CHECKED_CERTIFICATES = `
  SELECT c.fingerprint, c.serial_number, c.issuer_dn_hash, c.ocsp_urls,
         (SELECT url FROM unnest(c.crl_distribution_points) AS url WHERE url ~* '^https?://' LIMIT 1) AS crl_url
    FROM certificates c
   WHERE c.not_after > $1
     AND EXISTS (SELECT 1 FROM endpoint_certificates l WHERE l.fingerprint = c.fingerprint AND l.is_current)`;

/** A certificate checked by OCSP (it names no http(s) CRL), with the stored certificates that may be its issuer. */
export interface OcspTarget {
  fingerprint: string;
  der: Buffer;
  ocspUrl: string;
  issuers: Buffer[];
}

// Entries inserted per statement when a CRL's serials are replaced.
const SERIALS_PER_INSERT = 5000;

@Injectable()
export class RevocationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The CRLs the checked certificates name whose stored copy is missing or due for a fetch. */
  async findCrlsToFetch(now: Date): Promise<CrlToFetch[]> {
    return this.dataSource.query<CrlToFetch[]>(
      `SELECT t.crl_url AS url, coalesce(array_agg(DISTINCT t.issuer_dn_hash) FILTER (WHERE t.issuer_dn_hash IS NOT NULL), '{}') AS "issuerDnHashes"
         FROM (${CHECKED_CERTIFICATES}) t
         LEFT JOIN revocation_lists rl ON rl.url = t.crl_url
        WHERE t.crl_url IS NOT NULL AND (rl.url IS NULL OR rl.next_fetch_at <= $1)
        GROUP BY t.crl_url
        ORDER BY t.crl_url`,
      [now],
    );
  }

  /** The DER of every stored certificate whose subject is one of these names: the candidate signers of a CRL. */
  async findIssuers(subjectDnHashes: readonly string[]): Promise<Buffer[]> {
    if (subjectDnHashes.length === 0) return [];
    const rows = await this.dataSource.query<{ der: Buffer }[]>('SELECT der FROM certificates WHERE subject_dn_hash = ANY($1::text[])', [
      subjectDnHashes,
    ]);
    return rows.map((row) => row.der);
  }

  /** A page of the certificates checked by OCSP whose stored answer is missing or due, in fingerprint order after `after`. */
  async findOcspTargets(now: Date, after: string, limit: number): Promise<OcspTarget[]> {
    return this.dataSource.query<OcspTarget[]>(
      `SELECT t.fingerprint, c.der,
              (SELECT url FROM unnest(t.ocsp_urls) AS url WHERE url ~* '^https?://' LIMIT 1) AS "ocspUrl",
              coalesce((SELECT array_agg(i.der) FROM certificates i WHERE i.subject_dn_hash = t.issuer_dn_hash), '{}') AS issuers
         FROM (${CHECKED_CERTIFICATES}) t
         JOIN certificates c ON c.fingerprint = t.fingerprint
        WHERE t.crl_url IS NULL AND EXISTS (SELECT 1 FROM unnest(t.ocsp_urls) AS url WHERE url ~* '^https?://')
          AND NOT EXISTS (SELECT 1 FROM certificate_revocations r
                           WHERE r.fingerprint = t.fingerprint AND r.source = 'ocsp' AND r.next_check_at > $1)
          AND t.fingerprint > $2
        ORDER BY t.fingerprint
        LIMIT $3`,
      [now, after, limit],
    );
  }

  /** One certificate's verdict from its OCSP responder, reused until `nextCheckAt` (null: asked again at the next run). */
  async saveOcspVerdict(
    fingerprint: string,
    verdict: { status: string; revokedAt: Date | null; reason: string | null; error: string | null },
    checkedAt: Date,
    nextCheckAt: Date | null,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO certificate_revocations (fingerprint, status, source, revoked_at, reason, checked_at, error, next_check_at)
       VALUES ($1, $2, 'ocsp', $3, $4, $5, $6, $7)
       ON CONFLICT (fingerprint) DO UPDATE
         SET status = EXCLUDED.status, source = EXCLUDED.source, revoked_at = EXCLUDED.revoked_at, reason = EXCLUDED.reason,
             checked_at = EXCLUDED.checked_at, error = EXCLUDED.error, next_check_at = EXCLUDED.next_check_at`,
      [fingerprint, verdict.status, verdict.revokedAt, verdict.reason, checkedAt, verdict.error, nextCheckAt],
    );
  }

  /** A CRL that verified: its entries replace the URL's previous ones, in one transaction. */
  async saveVerifiedCrl(
    url: string,
    crl: { thisUpdate: Date; nextUpdate: Date | null; entries: RevokedEntry[] },
    fetchedAt: Date,
    nextFetchAt: Date,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.upsertList(manager, url, { fetchedAt, nextFetchAt, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate, error: null });
      await manager.query('DELETE FROM revoked_serials WHERE crl_url = $1', [url]);
      for (let start = 0; start < crl.entries.length; start += SERIALS_PER_INSERT) {
        const chunk = crl.entries.slice(start, start + SERIALS_PER_INSERT);
        await manager.query(
          `INSERT INTO revoked_serials (crl_url, serial_number, revoked_at, reason)
           SELECT $1, s, r, n FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS e(s, r, n)
           ON CONFLICT DO NOTHING`,
          [url, chunk.map((e) => e.serialNumber), chunk.map((e) => e.revokedAt), chunk.map((e) => e.reason)],
        );
      }
    });
  }

  /** A CRL that could not be fetched or used: its certificates read unknown with `error` until a fetch succeeds. */
  async saveFailedCrl(url: string, error: string, fetchedAt: Date, nextFetchAt: Date): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.upsertList(manager, url, { fetchedAt, nextFetchAt, thisUpdate: null, nextUpdate: null, error });
      await manager.query('DELETE FROM revoked_serials WHERE crl_url = $1', [url]);
    });
  }

  /**
   * Judges every checked certificate with a CRL against its stored list, in one statement:
   * revoked when a list that verified names its serial, unknown with the reason when the list
   * failed or is past its nextUpdate, good otherwise. Answers the fingerprints whose status changed.
   */
  async judgeByCrl(now: Date, stale: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ fingerprint: string }[]>(
      `WITH judged AS (
         SELECT t.fingerprint,
                CASE WHEN rl.error IS NOT NULL OR rl.next_update <= $1 THEN 'unknown'
                     WHEN s.serial_number IS NOT NULL THEN 'revoked' ELSE 'good' END AS status,
                s.revoked_at, s.reason,
                CASE WHEN rl.error IS NOT NULL THEN rl.error WHEN rl.next_update <= $1 THEN $2 END AS error
           FROM (${CHECKED_CERTIFICATES}) t
           JOIN revocation_lists rl ON rl.url = t.crl_url
           LEFT JOIN revoked_serials s ON s.crl_url = t.crl_url AND s.serial_number = t.serial_number
       ), previous AS (
         SELECT r.fingerprint, r.status FROM certificate_revocations r JOIN judged USING (fingerprint)
       ), written AS (
         INSERT INTO certificate_revocations AS r (fingerprint, status, source, revoked_at, reason, checked_at, error)
         SELECT fingerprint, status, 'crl', CASE WHEN status = 'revoked' THEN revoked_at END, CASE WHEN status = 'revoked' THEN reason END, $1, error
           FROM judged
         ON CONFLICT (fingerprint) DO UPDATE
           SET status = EXCLUDED.status, source = EXCLUDED.source, revoked_at = EXCLUDED.revoked_at, reason = EXCLUDED.reason,
               checked_at = EXCLUDED.checked_at, error = EXCLUDED.error, next_check_at = NULL
         RETURNING r.fingerprint, r.status
       )
       SELECT w.fingerprint FROM written w LEFT JOIN previous p USING (fingerprint) WHERE p.status IS DISTINCT FROM w.status`,
      [now, stale],
    );
    return rows.map((row) => row.fingerprint);
  }

  /** Certificates current on an endpoint in scope that the latest check found revoked, with those endpoints (cert_revoked's facts). */
  async findCurrentRevoked(subscriptions: readonly string[]): Promise<CandidateCertificate[]> {
    const rows = await this.dataSource.query<CandidateCertificate[]>(
      `SELECT * FROM (
         SELECT c.fingerprint, c.common_name AS "commonName", c.not_after AS "notAfter",
                json_build_object('status', r.status, 'revokedAt', r.revoked_at, 'reason', r.reason) AS revocation,
                (SELECT json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type) ORDER BY e.name, e.id)
                   FROM endpoints e
                  WHERE e.id IN (SELECT l.endpoint_id FROM endpoint_certificates l WHERE l.fingerprint = c.fingerprint AND l.is_current)
                    AND ${inSubscriptionScope('e', '$1')}) AS endpoints
           FROM certificate_revocations r
           JOIN certificates c ON c.fingerprint = r.fingerprint
          WHERE r.status = 'revoked'
       ) revoked
       WHERE endpoints IS NOT NULL
       ORDER BY fingerprint`,
      [subscriptions],
    );
    return rows.map((row) => ({
      ...row,
      revocation: row.revocation && { ...row.revocation, revokedAt: row.revocation.revokedAt && new Date(row.revocation.revokedAt) },
    }));
  }

  findByFingerprint(fingerprint: string): Promise<CertificateRevocationEntity | null> {
    return this.dataSource
      .query<CertificateRevocationEntity[]>(
        `SELECT fingerprint, status, source, revoked_at AS "revokedAt", reason, checked_at AS "checkedAt", error, next_check_at AS "nextCheckAt"
           FROM certificate_revocations WHERE fingerprint = $1`,
        [fingerprint],
      )
      .then((rows) => rows[0] ?? null);
  }

  private async upsertList(
    manager: { query: DataSource['query'] },
    url: string,
    list: { fetchedAt: Date; nextFetchAt: Date; thisUpdate: Date | null; nextUpdate: Date | null; error: string | null },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO revocation_lists (url, fetched_at, next_fetch_at, this_update, next_update, error) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (url) DO UPDATE SET fetched_at = EXCLUDED.fetched_at, next_fetch_at = EXCLUDED.next_fetch_at,
              this_update = EXCLUDED.this_update, next_update = EXCLUDED.next_update, error = EXCLUDED.error`,
      [url, list.fetchedAt, list.nextFetchAt, list.thisUpdate, list.nextUpdate, list.error],
    );
  }
}
