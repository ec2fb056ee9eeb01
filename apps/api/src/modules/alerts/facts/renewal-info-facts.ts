import { Injectable } from '@nestjs/common';
import type { EventContext } from '@certkeeper/domain';
import { RenewalInfoRepository } from '../../renewal-info/renewal-info.repository';
import type { CandidateCertificate, FactLoader } from './fact-loader';

/** The renewal_overdue facts: current certificates whose CA's suggested renewal window has ended (docs/api-contract.md section 15). */
@Injectable()
export class RenewalInfoFacts implements FactLoader {
  constructor(private readonly renewalInfo: RenewalInfoRepository) {}

  async load(scope: readonly string[], { now, policy }: EventContext): Promise<CandidateCertificate[]> {
    return policy.renewalInfo ? this.renewalInfo.findOverdue(now, scope) : [];
  }
}
