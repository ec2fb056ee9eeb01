import { Injectable, NotFoundException } from '@nestjs/common';
import { compareRotation, type RotationComparison } from '@certkeeper/domain';
import type { Transaction } from '../../database/transaction';
import type { CertUse } from '../links/endpoint-certificate.entity';
import type { RotationEntity } from './rotation.entity';
import { type NewRotation, type RotatedCertificateFacts, RotationsRepository } from './rotations.repository';

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
   * Endpoints moving from one certificate to another with chains alike compare alike: compared
   * once, and the comparison stored by all of them is sent once (a fleet rotating to one
   * certificate is one comparison however many endpoints).
   */
  async record(replacements: Replacement[], transaction: Transaction): Promise<void> {
    const rotated = replacements.filter((r) => r.retired.length > 0 && r.arrived.length > 0);
    if (rotated.length === 0) return;
    const pairs = rotated.flatMap((r) => [...r.retired, ...r.arrived].map((fingerprint) => ({ endpointId: r.endpointId, fingerprint })));
    const { certificates, chainComplete } = await this.rotations.findRotatedFacts(pairs, transaction);
    const comparisons = new Map<string, RotationComparison>();
    const rows: NewRotation[] = [];
    for (const { endpointId, certUse, retired, arrived } of rotated) {
      const from = latestIssued(retired, certificates);
      if (!from) continue;
      const fromChain = chainComplete.get(`${endpointId} ${from.fingerprint}`) ?? null;
      for (const fingerprint of arrived) {
        const to = certificates.get(fingerprint);
        if (!to) continue;
        const toChain = chainComplete.get(`${endpointId} ${fingerprint}`) ?? null;
        const key = `${from.fingerprint} ${fromChain} ${to.fingerprint} ${toChain}`;
        let comparison = comparisons.get(key);
        if (!comparison) {
          comparison = compareRotation({ ...from, chainComplete: fromChain }, { ...to, chainComplete: toChain });
          comparisons.set(key, comparison);
        }
        rows.push({ endpointId, certUse, fromFingerprint: from.fingerprint, toFingerprint: to.fingerprint, comparison });
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

/** Of the stored certificates among `fingerprints`, the latest issued (the first of those issued together). */
function latestIssued(fingerprints: string[], certificates: Map<string, RotatedCertificateFacts>): RotatedCertificateFacts | undefined {
  let latest: RotatedCertificateFacts | undefined;
  for (const fingerprint of fingerprints) {
    const certificate = certificates.get(fingerprint);
    if (certificate && (!latest || certificate.notBefore > latest.notBefore)) latest = certificate;
  }
  return latest;
}
