import { Inject, Injectable, Logger } from '@nestjs/common';
import { readVerifiedCrl } from '@certkeeper/domain';
import { boundedFetch, type BoundedFetchFailure, type OutboundGuard } from '@certkeeper/net';
import { Clock } from '../../common/clock';
import { outboundGuardFor } from '../../common/net/outbound-guard';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { FindingsService } from '../findings/findings.service';
import { RevocationRepository } from './revocation.repository';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A CRL download's limits (docs/api-contract.md section 18). */
export const CRL_FETCH_LIMITS = { timeoutMs: 30_000, maxBytes: 64 * 1024 * 1024, maxRedirects: 0 };

const STALE = 'The CRL is past its nextUpdate: its issuer has not published a newer one.';

/**
 * The check-revocation task (docs/api-contract.md section 18): each CRL the current certificates
 * name is fetched once until its nextUpdate (at least an hour, at most a day later), verified
 * against its issuer's key and its serials stored; every certificate is then judged against the
 * stored lists in one statement. One CRL is in memory at a time, however many certificates share it.
 */
@Injectable()
export class RevocationService {
  private readonly logger = new Logger('Revocation');
  private readonly guard: OutboundGuard;

  constructor(
    private readonly revocation: RevocationRepository,
    private readonly findings: FindingsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.guard = outboundGuardFor(config);
  }

  /** The task: CRLs due fetched, certificates judged, then every endpoint's findings brought up to date (revocation and the clock change them). */
  async checkAll(): Promise<Record<string, number>> {
    const counts = { crlsFetched: 0, crlsFailed: 0, statusesChanged: 0, findingsChanged: 0 };
    for (const crl of await this.revocation.findCrlsToFetch(this.clock.now())) {
      if (await this.refreshCrl(crl.url, crl.issuerDnHashes)) counts.crlsFetched += 1;
      else counts.crlsFailed += 1;
    }
    counts.statusesChanged = (await this.revocation.judgeByCrl(this.clock.now(), STALE)).length;
    counts.findingsChanged = (await this.findings.recomputeAll()).changed;
    return counts;
  }

  /** Fetches, verifies and stores one CRL; false when it could not be used (its certificates read unknown with the reason). */
  private async refreshCrl(url: string, issuerDnHashes: string[]): Promise<boolean> {
    const fetchedAt = this.clock.now();
    const fetched = await boundedFetch(url, { ...CRL_FETCH_LIMITS, guard: this.guard });
    if (!fetched.ok) {
      const error = `The CRL could not be fetched: ${describeFetchFailure(fetched.failure)}`;
      this.logger.warn(`${error} (${url})`);
      await this.revocation.saveFailedCrl(url, error, fetchedAt, new Date(fetchedAt.getTime() + HOUR_MS));
      return false;
    }
    const crl = await readVerifiedCrl(fetched.body, await this.revocation.findIssuers(issuerDnHashes));
    if (!crl.ok) {
      this.logger.warn(`${crl.error} (${url})`);
      await this.revocation.saveFailedCrl(url, crl.error, fetchedAt, new Date(fetchedAt.getTime() + HOUR_MS));
      return false;
    }
    await this.revocation.saveVerifiedCrl(url, crl, fetchedAt, nextFetchAt(crl.nextUpdate, fetchedAt));
    return true;
  }
}

/** The list's nextUpdate, but at least an hour and at most a day away. */
export function nextFetchAt(nextUpdate: Date | null, now: Date): Date {
  const earliest = now.getTime() + HOUR_MS;
  const latest = now.getTime() + DAY_MS;
  return new Date(Math.min(latest, Math.max(earliest, nextUpdate?.getTime() ?? latest)));
}

/** A fetch failure in words for the certificate's `error`, never the server's text. */
function describeFetchFailure(failure: BoundedFetchFailure): string {
  if (failure.kind === 'too-large') return `it is larger than ${CRL_FETCH_LIMITS.maxBytes / 1024 / 1024} MiB.`;
  if (failure.kind === 'timeout' || failure.kind === 'connect-timeout')
    return `no answer within ${CRL_FETCH_LIMITS.timeoutMs / 1000} seconds.`;
  if (failure.kind === 'refused') return failure.message;
  if (failure.kind === 'http-status') return `the server answered HTTP ${failure.status}.`;
  if (failure.kind === 'network') return `the connection failed (${failure.code ?? 'network error'}).`;
  return `${failure.kind.replaceAll('-', ' ')}.`;
}
