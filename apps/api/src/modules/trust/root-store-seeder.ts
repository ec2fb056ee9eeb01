import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { rootCertificates } from 'node:tls';
import { parseCertificates } from '@certkeeper/domain/x509';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CertificatesService } from '../certificates/certificates.service';
import { TrustVerdictsService } from './trust-verdicts.service';
import { TrustRepository } from './trust.repository';

export const NODE_BUNDLED_SOURCE = 'node:bundled';

/**
 * On a fresh install with no network, trust verdicts should still work: the Mozilla store is
 * seeded from the roots bundled with Node.js (themselves Mozilla's list). The other three stores
 * stay empty until a refresh succeeds. A store that was ever filled is never touched here.
 */
@Injectable()
export class RootStoreSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('RootStores');

  constructor(
    private readonly trust: TrustRepository,
    private readonly certificates: CertificatesService,
    private readonly verdicts: TrustVerdictsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.seedRootStores) await this.seedMozillaIfEmpty();
  }

  /** Returns the number of anchors seeded (0 when the store was already filled). */
  async seedMozillaIfEmpty(): Promise<number> {
    const seeded = await this.trust.inTransaction(async (transaction) => {
      // Serialised with other replicas starting at the same time; the check runs under the lock.
      const claimed = await this.trust.claimEmptyStore('mozilla', transaction);
      if (!claimed) return 0;
      // Parsed only when seeding: every later start found the store filled, after 0.3 s of parsing.
      const parsed = parseCertificates(rootCertificates.join('\n'), { maxCertificates: Infinity });
      await this.certificates.storeParsed(parsed.certificates, transaction);
      await this.trust.replaceAnchors(
        'mozilla',
        parsed.certificates.map((c) => c.fingerprintSha256),
        NODE_BUNDLED_SOURCE,
        this.clock.now(),
        transaction,
      );
      this.logger.log(`Seeded the Mozilla root store with ${parsed.certificates.length} roots bundled with Node.js.`);
      return parsed.certificates.length;
    });
    if (seeded > 0) await this.verdicts.reevaluateAll();
    return seeded;
  }
}
