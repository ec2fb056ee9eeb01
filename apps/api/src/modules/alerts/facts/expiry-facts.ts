import { Injectable } from '@nestjs/common';
import { type EventContext, expiringWithinBefore } from '@certkeeper/domain';
import { ExpiryRepository } from '../../expiry/expiry.repository';
import type { CandidateCertificate, FactLoader } from './fact-loader';

/** The expiry events' facts: certificates within the largest threshold of their notAfter, expired ones included. */
@Injectable()
export class ExpiryFacts implements FactLoader {
  constructor(private readonly expiry: ExpiryRepository) {}

  load(scope: readonly string[], { now, thresholds }: EventContext): Promise<CandidateCertificate[]> {
    return this.expiry.findCurrentExpiringBefore(expiringWithinBefore(Math.max(...thresholds), now), scope);
  }
}
