import { Injectable } from '@nestjs/common';
import type { EventContext } from '@certkeeper/domain';
import { RenewalsRepository } from '../../renewals/renewals.repository';
import { SupersedingPolicy } from '../../renewals/superseding-policy';
import type { CandidateCertificate, FactLoader } from './fact-loader';

/**
 * The renewal events' facts (docs/api-contract.md section 16): current certificates a regressing
 * rotation brought in (rotation_regression), and those a stored renewal supersedes
 * (renewal_not_deployed). A certificate no longer current is in neither, so its event stops.
 */
@Injectable()
export class RenewalFacts implements FactLoader {
  constructor(
    private readonly renewals: RenewalsRepository,
    private readonly superseding: SupersedingPolicy,
  ) {}

  async load(scope: readonly string[], { now }: EventContext): Promise<CandidateCertificate[]> {
    const [regressed, superseded] = await Promise.all([
      this.renewals.findRegressedCurrent(scope),
      this.superseding.window(now).then((window) => this.renewals.findSupersededCurrent(scope, window)),
    ]);
    return [...regressed, ...superseded];
  }
}
