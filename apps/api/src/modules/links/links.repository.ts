import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import type { EndpointType } from '../endpoints/endpoint.entity';
import type { CertUse } from './endpoint-certificate.entity';

/** A current link with the certificate summary an endpoint detail shows. */
export interface CurrentCertificateRow {
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

export interface LinkState {
  fingerprint: string;
  isCurrent: boolean;
}

/** (endpoint, fingerprint) pairs as two parallel arrays, the shape `unnest` reads. */
export interface LinkPairs {
  endpointIds: string[];
  fingerprints: string[];
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

  findLinks(endpointId: string, certUse: CertUse, transaction: Transaction): Promise<LinkState[]> {
    return transaction.query<LinkState[]>(
      `SELECT fingerprint, is_current AS "isCurrent" FROM endpoint_certificates WHERE endpoint_id = $1 AND cert_use = $2`,
      [endpointId, certUse],
    );
  }

  /** New current links; notAfter is copied from the stored certificate. Timestamps from the database clock. */
  async insertCurrent(endpointId: string, certUse: CertUse, fingerprints: string[], transaction: Transaction): Promise<void> {
    if (fingerprints.length === 0) return;
    await transaction.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT $1, c.fingerprint, $2, true, c.not_after, now(), now() FROM certificates c WHERE c.fingerprint = ANY($3::text[])`,
      [endpointId, certUse, fingerprints],
    );
  }

  /** Seen again: current (reactivating a historical link) with a fresh lastSeenAt. */
  async markSeen(endpointId: string, certUse: CertUse, fingerprints: string[], transaction: Transaction): Promise<void> {
    if (fingerprints.length === 0) return;
    await transaction.query(
      `UPDATE endpoint_certificates SET is_current = true, last_seen_at = now()
        WHERE endpoint_id = $1 AND cert_use = $2 AND fingerprint = ANY($3::text[])`,
      [endpointId, certUse, fingerprints],
    );
  }

  /** Moves current links to history. */
  async markHistorical(endpointId: string, certUse: CertUse, fingerprints: string[], transaction: Transaction): Promise<void> {
    if (fingerprints.length === 0) return;
    await transaction.query(
      `UPDATE endpoint_certificates SET is_current = false
        WHERE endpoint_id = $1 AND cert_use = $2 AND fingerprint = ANY($3::text[]) AND is_current`,
      [endpointId, certUse, fingerprints],
    );
  }

  /**
   * Replace mode for many endpoints at once: moves to history their current links in this role
   * that are not among the (endpoint, fingerprint) pairs seen.
   */
  async retireUnseen(endpointIds: string[], certUse: CertUse, seen: LinkPairs, transaction: Transaction): Promise<void> {
    if (endpointIds.length === 0) return;
    await transaction.query(
      `UPDATE endpoint_certificates l SET is_current = false
        WHERE l.endpoint_id = ANY($1::uuid[]) AND l.cert_use = $2 AND l.is_current
          AND NOT EXISTS (SELECT 1 FROM unnest($3::uuid[], $4::text[]) AS s(endpoint_id, fingerprint)
                           WHERE s.endpoint_id = l.endpoint_id AND s.fingerprint = l.fingerprint)`,
      [endpointIds, certUse, seen.endpointIds, seen.fingerprints],
    );
  }

  /**
   * Each distinct pair seen now, in one statement: an unknown link is created current (notAfter
   * copied from the stored certificate; a fingerprint not stored is skipped, as insertCurrent
   * does), a known one, current or historical, is made current with a fresh lastSeenAt.
   * Timestamps from the database clock.
   */
  async upsertSeen(certUse: CertUse, seen: LinkPairs, transaction: Transaction): Promise<void> {
    if (seen.endpointIds.length === 0) return;
    await transaction.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT s.endpoint_id, c.fingerprint, $3, true, c.not_after, now(), now()
         FROM unnest($1::uuid[], $2::text[]) AS s(endpoint_id, fingerprint) JOIN certificates c ON c.fingerprint = s.fingerprint
       ON CONFLICT (endpoint_id, fingerprint, cert_use) DO UPDATE SET is_current = true, last_seen_at = now()`,
      [seen.endpointIds, seen.fingerprints, certUse],
    );
  }

  /** Current links of the given endpoints, soonest expiry first. */
  async findCurrentCertificates(endpointIds: string[]): Promise<CurrentCertificateRow[]> {
    if (endpointIds.length === 0) return [];
    return this.dataSource.query<CurrentCertificateRow[]>(
      `SELECT l.endpoint_id AS "endpointId", l.cert_use AS "certUse", l.first_seen_at AS "firstSeenAt", l.last_seen_at AS "lastSeenAt",
              c.fingerprint, c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName",
              c.not_before AS "notBefore", c.not_after AS "notAfter"
         FROM endpoint_certificates l
         JOIN certificates c ON c.fingerprint = l.fingerprint
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
