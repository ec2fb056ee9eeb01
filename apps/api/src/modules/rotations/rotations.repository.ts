import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RotatedCertificate, RotationComparison } from '@certkeeper/domain';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import type { CertUse } from '../links/endpoint-certificate.entity';
import type { RotationEntity } from './rotation.entity';

/** A stored certificate's own compared facts: all but the chain it was presented with. */
export interface RotatedCertificateFacts extends Omit<RotatedCertificate, 'chainComplete'> {
  fingerprint: string;
}

/** What a post's rotations compare: each certificate's facts once, and each (endpoint, certificate)'s last chain. */
export interface RotatedFacts {
  certificates: Map<string, RotatedCertificateFacts>;
  /** By `${endpointId} ${fingerprint}`: whether the chain the endpoint last presented with it was complete (null without a scan). */
  chainComplete: Map<string, boolean | null>;
}

/** A rotation to record; rotations compared alike share one `comparison` object. */
export interface NewRotation {
  endpointId: string;
  certUse: CertUse;
  fromFingerprint: string;
  toFingerprint: string;
  comparison: RotationComparison;
}

@Injectable()
export class RotationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The compared facts of the certificates of these (endpoint, certificate) pairs, in one
   * statement: each certificate's own once, however many endpoints it rotated on, and per pair
   * the completeness of the chain the endpoint last presented with it (one probe of
   * scan_history_fingerprint_endpoint_idx). Read as JSON: one row, whatever the number of pairs.
   */
  async findRotatedFacts(pairs: { endpointId: string; fingerprint: string }[], transaction: Transaction): Promise<RotatedFacts> {
    const [row] = await transaction.query<
      {
        certificates: (Omit<RotatedCertificateFacts, 'notBefore' | 'notAfter'> & { notBefore: string; notAfter: string })[];
        chains: [string, string, boolean | null][];
      }[]
    >(
      `SELECT coalesce((SELECT json_agg(json_build_object('fingerprint', c.fingerprint, 'issuer', c.issuer, 'trustedBy', c.trusted_by,
                        'keyAlgorithm', c.key_algorithm, 'keySize', c.key_size, 'signatureAlgorithm', c.signature_algorithm, 'sans', c.sans,
                        'extendedKeyUsage', c.extended_key_usage, 'notBefore', c.not_before, 'notAfter', c.not_after))
                          FROM certificates c WHERE c.fingerprint = ANY($2::text[])), '[]') AS certificates,
              coalesce((SELECT json_agg(json_build_array(s.endpoint_id, s.fingerprint,
                         (SELECT h.chain_complete FROM scan_history h
                           WHERE h.fingerprint = s.fingerprint AND h.endpoint_id = s.endpoint_id AND h.chain_complete IS NOT NULL
                           ORDER BY h.scanned_at DESC LIMIT 1)))
                          FROM unnest($1::uuid[], $2::text[]) AS s(endpoint_id, fingerprint)), '[]') AS chains`,
      [pairs.map((pair) => pair.endpointId), pairs.map((pair) => pair.fingerprint)],
    );
    return {
      certificates: new Map(
        row.certificates.map((c) => [c.fingerprint, { ...c, notBefore: new Date(c.notBefore), notAfter: new Date(c.notAfter) }]),
      ),
      chainComplete: new Map(row.chains.map(([endpointId, fingerprint, complete]) => [`${endpointId} ${fingerprint}`, complete])),
    };
  }

  /**
   * Records rotations in one statement, at the database clock's now like the links they follow.
   * Each distinct comparison is sent once and the rotations name theirs by position: a fleet
   * rotating to one certificate sends its changes and regressions once, not once per endpoint.
   */
  async insert(rotations: NewRotation[], transaction: Transaction): Promise<void> {
    if (rotations.length === 0) return;
    const positions = new Map<RotationComparison, number>();
    const rows = rotations.map((rotation) => {
      let position = positions.get(rotation.comparison);
      if (position === undefined) {
        position = positions.size + 1;
        positions.set(rotation.comparison, position);
      }
      return {
        endpoint_id: rotation.endpointId,
        cert_use: rotation.certUse,
        from_fingerprint: rotation.fromFingerprint,
        to_fingerprint: rotation.toFingerprint,
        comparison: position,
      };
    });
    await transaction.query(
      `WITH compared AS (
         SELECT c.position, c.comparison->'changes' AS changes, ARRAY(SELECT jsonb_array_elements_text(c.comparison->'regressions')) AS regressions
           FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS c(comparison, position)
       )
       INSERT INTO rotations (endpoint_id, cert_use, at, from_fingerprint, to_fingerprint, changes, regressions)
       SELECT r.endpoint_id, r.cert_use, now(), r.from_fingerprint, r.to_fingerprint, compared.changes, compared.regressions
         FROM jsonb_to_recordset($1::jsonb) AS r(endpoint_id uuid, cert_use text, from_fingerprint text, to_fingerprint text, comparison int)
         JOIN compared ON compared.position = r.comparison`,
      [JSON.stringify(rows), JSON.stringify([...positions.keys()])],
    );
  }

  async endpointExists(endpointId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>('SELECT 1 FROM endpoints WHERE id = $1', [endpointId]);
    return rows.length > 0;
  }

  /** One window of an endpoint's rotations, newest first, and how many it has. */
  async findByEndpoint(endpointId: string, window: { limit: number; offset: number }): Promise<{ rows: RotationEntity[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query<RotationEntity[]>(
        `SELECT id, cert_use AS "certUse", at, from_fingerprint AS "fromFingerprint", to_fingerprint AS "toFingerprint", changes, regressions
           FROM rotations WHERE endpoint_id = $1
          ORDER BY at DESC, id LIMIT $2 OFFSET $3`,
        [endpointId, window.limit, window.offset],
      ),
      this.dataSource.query<{ total: number }[]>('SELECT count(*)::int AS total FROM rotations WHERE endpoint_id = $1', [endpointId]),
    ]);
    return { rows, total };
  }
}
