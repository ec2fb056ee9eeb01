import { Injectable } from '@nestjs/common';
import { RevocationRepository } from '../../revocation/revocation.repository';
import type { CandidateCertificate, FactLoader } from './fact-loader';

/** cert_revoked's facts (docs/api-contract.md section 18): current certificates the latest check found revoked. */
@Injectable()
export class RevocationFacts implements FactLoader {
  constructor(private readonly revocation: RevocationRepository) {}

  load(scope: readonly string[]): Promise<CandidateCertificate[]> {
    return this.revocation.findCurrentRevoked(scope);
  }
}
