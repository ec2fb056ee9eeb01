import { Module } from '@nestjs/common';
import { TrustVerdictsRepository } from './trust-verdicts.repository';
import { TrustVerdictsService } from './trust-verdicts.service';

/**
 * The stored trust verdicts, on their own so that CertificatesModule (which evaluates what it
 * stores), TrustModule (which re-evaluates after the anchors change) and IngestModule can all
 * import them without CertificatesModule and TrustModule importing each other.
 */
@Module({
  providers: [TrustVerdictsRepository, TrustVerdictsService],
  exports: [TrustVerdictsService],
})
export class TrustVerdictsModule {}
