import { Injectable, NotFoundException } from '@nestjs/common';
import { compareRotation, type RotatedCertificate, type RotationComparison } from '@certkeeper/domain';
import type { Transaction } from '../../database/transaction';
import type { CertUse } from '../links/endpoint-certificate.entity';
import type { RotationEntity } from './rotation.entity';
import { type NewRotation, type RotatedCertificateFacts, RotationsRepository } from './rotations.repository';

/** A certificate of a rotation with its compared facts, as it stood on one endpoint. */
type RotatedOnEndpoint = RotatedCertificate & Pick<RotatedCertificateFacts, 'fingerprint'>;

/** In one (endpoint, role) of one sighting: the current certificates that left, and those that became current. */
export interface Replacement {
  endpointId: string;
  certUse: CertUse;
  retired: string[];
  arrived: string[];
}

/** Rotations (docs/api-contract.md section 16): recorded as links change, compared by libs/domain, listed per endpoint. */
@Injectable()
export class RotationsService {
  constructor(private readonly rotations: RotationsRepository) {}

  /**
   * Records a rotation for each certificate that became current in place of others, compared
   * with the one it replaced (of those that left, the latest issued). Two statements for any
   * number of replacements, none when there is none: ingest where nothing rotates pays nothing.
   * Endpoints moving from one certificate to another with chains alike compare alike: compared once.
   */
  async record(replacements: Replacement[], transaction: Transaction): Promise<void> {
    const rotated = replacements.filter((r) => r.retired.length > 0 && r.arrived.length > 0);
    if (rotated.length === 0) return;
    const pairs = rotated.flatMap((r) => [...r.retired, ...r.arrived].map((fingerprint) => ({ endpointId: r.endpointId, fingerprint })));
    const { certificates, chainComplete } = await this.rotations.findRotatedFacts(pairs, transaction);
    const comparisons = new Map<string, RotationComparison>();
    const rows: NewRotation[] = [];
    for (const { endpointId, certUse, retired, arrived } of rotated) {
      const factsOf = (fingerprint: string): RotatedOnEndpoint | undefined => {
        const certificate = certificates.get(fingerprint);
        return certificate && { ...certificate, chainComplete: chainComplete.get(`${endpointId} ${fingerprint}`) ?? null };
      };
      const from = retired
        .map(factsOf)
        .filter((row) => row !== undefined)
        .reduce<RotatedOnEndpoint | undefined>((latest, row) => (latest && latest.notBefore >= row.notBefore ? latest : row), undefined);
      if (!from) continue;
      for (const to of arrived.map(factsOf)) {
        if (!to) continue;
        const key = `${from.fingerprint} ${from.chainComplete} ${to.fingerprint} ${to.chainComplete}`;
        const comparison = comparisons.get(key) ?? compareRotation(from, to);
        comparisons.set(key, comparison);
        rows.push({ endpointId, certUse, fromFingerprint: from.fingerprint, toFingerprint: to.fingerprint, ...comparison });
      }
    }
    await this.rotations.insert(rows, transaction);
  }

  /** GET /endpoints/{id}/rotations: newest first; 404 for an unknown endpoint. */
  async list(endpointId: string, window: { limit: number; offset: number }): Promise<{ rows: RotationEntity[]; total: number }> {
    if (!(await this.rotations.endpointExists(endpointId))) throw new NotFoundException('Endpoint not found.');
    return this.rotations.findByEndpoint(endpointId, window);
  }
}
