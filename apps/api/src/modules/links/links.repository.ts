import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import type { EndpointType } from '../endpoints/endpoint.entity';
import { type SupersededByColumns, supersededByColumns, storedSupersededByJoin } from '../renewals/superseded-by';
import type { CertUse } from './endpoint-certificate.entity';

/** A current link with the certificate summary an endpoint detail shows, and the renewal not deployed in its place. */
export interface CurrentCertificateRow extends SupersededByColumns {
  endpointId: string;
  certUse: CertUse;
  firstSeenAt: Date;
  lastSeenAt: Date;
  fingerprint: string;
  commonName: string | null;
  sans: string[];
  issuerCommonName: string | null;
  notBefore: Date;
  notAfter: Date;
}

/** Links as parallel arrays, the shape `unnest` reads. */
export interface LinkTriples {
  endpointIds: string[];
  certUses: CertUse[];
  fingerprints: string[];
}

/** One link by its key. */
export interface LinkRef {
  endpointId: string;
  certUse: CertUse;
  fingerprint: string;
}

export interface LinkedEndpointRow {
  endpointId: string;
  endpointName: string;
  endpointType: EndpointType;
  certUse: CertUse;
  isCurrent: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** The distinct (endpoint, role, fingerprint) triples seen, from parameters $1 to $3: the CTE `s`. */
const SEEN = `s AS (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[]) AS s(endpoint_id, cert_use, fingerprint))`;

/** Creates each unknown link of `s` current, and makes each known one current with a fresh lastSeenAt. */
const UPSERT_SEEN = `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
  SELECT s.endpoint_id, c.fingerprint, s.cert_use, true, c.not_after, now(), now()
    FROM s JOIN certificates c ON c.fingerprint = s.fingerprint
  ON CONFLICT (endpoint_id, fingerprint, cert_use) DO UPDATE SET is_current = true, last_seen_at = now()`;

@Injectable()
export class LinksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Locks the endpoint row for the rest of the transaction, so two sightings on one endpoint
   * apply one after the other. False when the endpoint does not exist.
   */
  async lockEndpoint(endpointId: string, transaction: Transaction): Promise<boolean> {
    const rows = await transaction.query<unknown[]>('SELECT 1 FROM endpoints WHERE id = $1 FOR UPDATE', [endpointId]);
    return rows.length > 0;
  }

  /**
   * In each (endpoint, role) named, moves to history the current links that are not among those
   * seen, clearing the renewal they kept (only a current link is superseded); returns the links it moved.
   */
  async retireUnseen(roles: Omit<LinkTriples, 'fingerprints'>, seen: LinkTriples, transaction: Transaction): Promise<LinkRef[]> {
    // An UPDATE answers [rows, count].
    const [retired] = await transaction.query<[LinkRef[], number]>(
      `UPDATE endpoint_certificates l SET is_current = false, superseded_by = NULL
         FROM unnest($1::uuid[], $2::text[]) AS r(endpoint_id, cert_use)
        WHERE l.endpoint_id = r.endpoint_id AND l.cert_use = r.cert_use AND l.is_current
          AND NOT EXISTS (SELECT 1 FROM unnest($3::uuid[], $4::text[], $5::text[]) AS s(endpoint_id, cert_use, fingerprint)
                           WHERE s.endpoint_id = l.endpoint_id AND s.cert_use = l.cert_use AND s.fingerprint = l.fingerprint)
       RETURNING l.endpoint_id AS "endpointId", l.cert_use AS "certUse", l.fingerprint`,
      [roles.endpointIds, roles.certUses, seen.endpointIds, seen.certUses, seen.fingerprints],
    );
    return retired;
  }

  /**
   * Each distinct link seen now, in one statement: an unknown link is created current (notAfter
   * copied from the stored certificate; a fingerprint not stored is skipped), a known one, current
   * or historical, is made current with a fresh lastSeenAt. Timestamps from the database clock.
   * Answers only the links it made current (created, or historical before), so a post where
   * nothing arrives answers no row. The prior state is read by the same statement; NOT IN over it
   * hashes, where an anti-join of the CTEs, whose sizes the planner cannot know, loops over every pair.
   */
  async upsertSeen(seen: LinkTriples, transaction: Transaction): Promise<LinkRef[]> {
    if (seen.endpointIds.length === 0) return [];
    return transaction.query<LinkRef[]>(
      `WITH ${SEEN}, prior AS (
         SELECT l.endpoint_id, l.cert_use, l.fingerprint FROM endpoint_certificates l JOIN s USING (endpoint_id, cert_use, fingerprint)
          WHERE l.is_current
       ), touched AS (${UPSERT_SEEN} RETURNING endpoint_id, cert_use, fingerprint)
       SELECT t.endpoint_id AS "endpointId", t.cert_use AS "certUse", t.fingerprint
         FROM touched t WHERE (t.endpoint_id, t.cert_use, t.fingerprint) NOT IN (SELECT endpoint_id, cert_use, fingerprint FROM prior)`,
      [seen.endpointIds, seen.certUses, seen.fingerprints],
    );
  }

  /** upsertSeen, answering each link it touched with whether it was current before (null: it is new), as an upload names them. */
  async upsertSeenWithPrior(seen: LinkTriples, transaction: Transaction): Promise<(LinkRef & { wasCurrent: boolean | null })[]> {
    if (seen.endpointIds.length === 0) return [];
    return transaction.query<(LinkRef & { wasCurrent: boolean | null })[]>(
      `WITH ${SEEN}, prior AS (
         SELECT l.endpoint_id, l.cert_use, l.fingerprint, l.is_current
           FROM endpoint_certificates l JOIN s USING (endpoint_id, cert_use, fingerprint)
       ), touched AS (${UPSERT_SEEN} RETURNING endpoint_id, cert_use, fingerprint)
       SELECT t.endpoint_id AS "endpointId", t.cert_use AS "certUse", t.fingerprint, prior.is_current AS "wasCurrent"
         FROM touched t LEFT JOIN prior USING (endpoint_id, cert_use, fingerprint)`,
      [seen.endpointIds, seen.certUses, seen.fingerprints],
    );
  }

  /** Current links of the given endpoints, soonest expiry first. */
  async findCurrentCertificates(endpointIds: string[]): Promise<CurrentCertificateRow[]> {
    if (endpointIds.length === 0) return [];
    return this.dataSource.query<CurrentCertificateRow[]>(
      `SELECT l.endpoint_id AS "endpointId", l.cert_use AS "certUse", l.first_seen_at AS "firstSeenAt", l.last_seen_at AS "lastSeenAt",
              c.fingerprint, c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName",
              c.not_before AS "notBefore", c.not_after AS "notAfter", ${supersededByColumns()}
         FROM endpoint_certificates l
         JOIN certificates c ON c.fingerprint = l.fingerprint
         ${storedSupersededByJoin('l')}
        WHERE l.endpoint_id = ANY($1::uuid[]) AND l.is_current
        ORDER BY l.not_after, l.cert_use`,
      [endpointIds],
    );
  }

  /** Endpoints linked to a certificate, current or historical, most recently seen first. */
  findEndpointsOf(fingerprint: string, current: boolean): Promise<LinkedEndpointRow[]> {
    return this.dataSource.query<LinkedEndpointRow[]>(
      `SELECT e.id AS "endpointId", e.name AS "endpointName", e.type AS "endpointType", l.cert_use AS "certUse",
              l.is_current AS "isCurrent", l.first_seen_at AS "firstSeenAt", l.last_seen_at AS "lastSeenAt"
         FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
        WHERE l.fingerprint = $1 AND l.is_current = $2
        ORDER BY l.last_seen_at DESC, e.name`,
      [fingerprint, current],
    );
  }

  async isReferenced(fingerprint: string, transaction: Transaction): Promise<boolean> {
    const rows = await transaction.query<unknown[]>('SELECT 1 FROM endpoint_certificates WHERE fingerprint = $1 LIMIT 1', [fingerprint]);
    return rows.length > 0;
  }
}
