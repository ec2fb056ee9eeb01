import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RootStoreId, TrustAnchor, TrustCandidate, TrustVerdict } from '@certkeeper/domain/trust';
import { DataSource } from 'typeorm';
import { withAdvisoryLock } from '../../database/advisory-lock';
import { TRUST_ARRIVALS_LOCK_KEY, TRUST_FULL_PASS_LOCK_KEY } from '../../database/advisory-lock-keys';
import type { Transaction } from '../../database/transaction';

const FULL_PASS_MAX_WAIT_MS = 60 * 60 * 1000;

/** Certificates that can stand above another in a path: CAs, and anchors (v1 roots say nothing). */
const CAN_ISSUE = `(c.is_ca OR c.fingerprint IN (SELECT fingerprint FROM root_store_anchors))`;

const CANDIDATE_COLUMNS = `c.fingerprint, c.der, c.subject, c.issuer, c.subject_dn_hash AS "subjectDnHash", c.issuer_dn_hash AS "issuerDnHash",
  c.subject_key_id AS "subjectKeyId", c.authority_key_id AS "authorityKeyId", c.is_ca AS "isCa", c.path_length AS "pathLength",
  c.self_signed AS "selfSigned", c.verified_issuers AS "verifiedIssuers"`;

interface CandidateRow {
  fingerprint: string;
  der: Buffer;
  subject: string;
  issuer: string;
  subjectDnHash: string | null;
  issuerDnHash: string | null;
  subjectKeyId: string | null;
  authorityKeyId: string | null;
  isCa: boolean;
  pathLength: number | null;
  selfSigned: boolean;
  verifiedIssuers: string[];
}

/** A stored certificate with the verdict it carries now, so a pass writes only what changed. */
export interface StoredCandidate extends TrustCandidate {
  stored: TrustVerdict;
}

export interface VerdictUpdate {
  fingerprint: string;
  /** null keeps the stored verdict (only issuers were verified). */
  verdict: TrustVerdict | null;
  /** Issuers newly verified; added to what the row lists. */
  verifiedIssuers: string[];
}

@Injectable()
export class TrustVerdictsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Held until the caller's transaction ends. */
  async holdArrivalsLock(transaction: Transaction): Promise<void> {
    await transaction.query('SELECT pg_advisory_xact_lock_shared($1)', [TRUST_ARRIVALS_LOCK_KEY]);
  }

  /** Waits until every arrival transaction now evaluating has committed or rolled back. */
  async waitForArrivals(): Promise<void> {
    await this.dataSource.transaction((transaction) => transaction.query('SELECT pg_advisory_xact_lock($1)', [TRUST_ARRIVALS_LOCK_KEY]));
  }

  /**
   * Runs `work` while this process holds the full-pass lock; waits for another replica's pass to
   * end first (a pass over a large inventory takes minutes, never an hour).
   */
  withFullPassLock<T>(work: () => Promise<T>): Promise<T> {
    return withAdvisoryLock(this.dataSource, TRUST_FULL_PASS_LOCK_KEY, work, { maxWaitMs: FULL_PASS_MAX_WAIT_MS });
  }

  /**
   * The certificates that can issue, following issuer names up from `names` (DER-name hashes) as
   * far as stored certificates go: what evaluating certificates with those names needs.
   */
  async issuersAbove(names: string[], transaction: Transaction): Promise<TrustCandidate[]> {
    const rows = await transaction.query<CandidateRow[]>(
      `WITH RECURSIVE names(hash) AS (
         SELECT unnest($1::text[])
         UNION
         SELECT c.issuer_dn_hash FROM certificates c JOIN names n ON c.subject_dn_hash = n.hash
          WHERE c.issuer_dn_hash IS NOT NULL AND ${CAN_ISSUE}
       )
       SELECT ${CANDIDATE_COLUMNS} FROM certificates c WHERE c.subject_dn_hash IN (SELECT hash FROM names) AND ${CAN_ISSUE}`,
      [names],
    );
    return rows.map(toCandidate);
  }

  /** Every certificate that can issue. */
  async allIssuers(): Promise<TrustCandidate[]> {
    const rows = await this.dataSource.query<CandidateRow[]>(`SELECT ${CANDIDATE_COLUMNS} FROM certificates c WHERE ${CAN_ISSUE}`);
    return rows.map(toCandidate);
  }

  /** Anchors whose subject is among `names`, or every anchor when `names` is omitted. */
  async anchors(names?: string[], transaction: Transaction = this.dataSource.manager): Promise<TrustAnchor[]> {
    const rows = await transaction.query<
      { storeId: RootStoreId; fingerprint: string; subjectDnHash: string | null; subjectKeyId: string | null }[]
    >(
      `SELECT a.store_id AS "storeId", a.fingerprint, c.subject_dn_hash AS "subjectDnHash", c.subject_key_id AS "subjectKeyId"
         FROM root_store_anchors a JOIN certificates c ON c.fingerprint = a.fingerprint
        WHERE $1::text[] IS NULL OR c.subject_dn_hash = ANY($1::text[])`,
      [names ?? null],
    );
    return rows.map((row) => ({ ...row, subjectDnHash: row.subjectDnHash ?? undefined }));
  }

  /** One page of every stored certificate, by fingerprint. */
  async pageAfter(fingerprint: string, limit: number): Promise<StoredCandidate[]> {
    const rows = await this.dataSource.query<(CandidateRow & { trustedBy: RootStoreId[]; isTrustAnchor: boolean })[]>(
      `SELECT ${CANDIDATE_COLUMNS}, c.trusted_by AS "trustedBy", c.is_trust_anchor AS "isTrustAnchor"
         FROM certificates c WHERE c.fingerprint > $1 ORDER BY c.fingerprint LIMIT $2`,
      [fingerprint, limit],
    );
    return rows.map((row) => ({ ...toCandidate(row), stored: { trustedBy: row.trustedBy, isTrustAnchor: row.isTrustAnchor } }));
  }

  async writeVerdicts(updates: VerdictUpdate[], transaction: Transaction = this.dataSource.manager): Promise<void> {
    if (updates.length === 0) return;
    await transaction.query(
      `UPDATE certificates c
          SET trusted_by = CASE WHEN v.trusted_by IS NULL THEN c.trusted_by ELSE string_to_array(v.trusted_by, ',') END,
              is_trust_anchor = COALESCE(v.is_trust_anchor, c.is_trust_anchor),
              verified_issuers = CASE WHEN v.verified = '' THEN c.verified_issuers
                                      ELSE ARRAY(SELECT DISTINCT unnest(c.verified_issuers || string_to_array(v.verified, ','))) END
         FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[]) AS v(fingerprint, trusted_by, is_trust_anchor, verified)
        WHERE c.fingerprint = v.fingerprint`,
      [
        updates.map((update) => update.fingerprint),
        updates.map((update) => update.verdict?.trustedBy.join(',') ?? null),
        updates.map((update) => update.verdict?.isTrustAnchor ?? null),
        updates.map((update) => update.verifiedIssuers.join(',')),
      ],
    );
  }
}

function toCandidate(row: CandidateRow): TrustCandidate {
  return {
    der: row.der,
    fingerprintSha256: row.fingerprint,
    subject: row.subject,
    issuer: row.issuer,
    subjectDnHash: row.subjectDnHash ?? undefined,
    issuerDnHash: row.issuerDnHash ?? undefined,
    subjectKeyId: row.subjectKeyId,
    authorityKeyId: row.authorityKeyId,
    isCa: row.isCa,
    pathLength: row.pathLength,
    selfSigned: row.selfSigned,
    verifiedIssuers: row.verifiedIssuers,
  };
}
