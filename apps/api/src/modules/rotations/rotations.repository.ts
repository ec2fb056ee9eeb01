import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RotatedCertificate, RotationComparison } from '@certkeeper/domain';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import type { CertUse } from '../links/endpoint-certificate.entity';
import type { RotationEntity } from './rotation.entity';

/** A certificate of a rotation with its compared facts, as it stood on one endpoint. */
export interface RotatedOnEndpoint extends RotatedCertificate {
  endpointId: string;
  fingerprint: string;
}

export interface NewRotation extends RotationComparison {
  endpointId: string;
  certUse: CertUse;
  fromFingerprint: string;
  toFingerprint: string;
}

@Injectable()
export class RotationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The compared facts of each (endpoint, certificate), in one statement: the certificate's own,
   * and whether the chain the endpoint last presented with it was complete (null without a scan).
   */
  findRotatedFacts(pairs: { endpointId: string; fingerprint: string }[], transaction: Transaction): Promise<RotatedOnEndpoint[]> {
    return transaction.query<RotatedOnEndpoint[]>(
      `SELECT s.endpoint_id AS "endpointId", c.fingerprint, c.issuer, c.trusted_by AS "trustedBy", c.key_algorithm AS "keyAlgorithm",
              c.key_size AS "keySize", c.signature_algorithm AS "signatureAlgorithm", c.sans, c.extended_key_usage AS "extendedKeyUsage",
              c.not_before AS "notBefore", c.not_after AS "notAfter",
              (SELECT h.chain_complete FROM scan_history h
                WHERE h.fingerprint = c.fingerprint AND h.endpoint_id = s.endpoint_id AND h.chain_complete IS NOT NULL
                ORDER BY h.scanned_at DESC LIMIT 1) AS "chainComplete"
         FROM unnest($1::uuid[], $2::text[]) AS s(endpoint_id, fingerprint)
         JOIN certificates c ON c.fingerprint = s.fingerprint`,
      [pairs.map((pair) => pair.endpointId), pairs.map((pair) => pair.fingerprint)],
    );
  }

  /** Records rotations in one statement, at the database clock's now like the links they follow. */
  async insert(rotations: NewRotation[], transaction: Transaction): Promise<void> {
    if (rotations.length === 0) return;
    await transaction.query(
      `INSERT INTO rotations (endpoint_id, cert_use, at, from_fingerprint, to_fingerprint, changes, regressions)
       SELECT r.endpoint_id, r.cert_use, now(), r.from_fingerprint, r.to_fingerprint, r.changes, ARRAY(SELECT jsonb_array_elements_text(r.regressions))
         FROM jsonb_to_recordset($1::jsonb)
           AS r(endpoint_id uuid, cert_use text, from_fingerprint text, to_fingerprint text, changes jsonb, regressions jsonb)`,
      [
        JSON.stringify(
          rotations.map((rotation) => ({
            endpoint_id: rotation.endpointId,
            cert_use: rotation.certUse,
            from_fingerprint: rotation.fromFingerprint,
            to_fingerprint: rotation.toFingerprint,
            changes: rotation.changes,
            regressions: rotation.regressions,
          })),
        ),
      ],
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
