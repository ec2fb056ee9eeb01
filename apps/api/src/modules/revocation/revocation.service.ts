import { Inject, Injectable, Logger } from '@nestjs/common';
import { X509Certificate } from 'node:crypto';
import { buildOcspRequest, readVerifiedCrl, readVerifiedOcspResponse } from '@certkeeper/domain';
import { boundedFetch, type BoundedFetchFailure, type OutboundGuard } from '@certkeeper/net';
import { Clock } from '../../common/clock';
import { outboundGuardFor } from '../../common/net/outbound-guard';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { FindingsService } from '../findings/findings.service';
import { RenewalsRepository } from '../renewals/renewals.repository';
import { SupersedingPolicy } from '../renewals/superseding-policy';
import { type OcspTarget, RevocationRepository } from './revocation.repository';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A CRL download's limits (docs/api-contract.md section 18). */
export const CRL_FETCH_LIMITS = { timeoutMs: 30_000, maxBytes: 64 * 1024 * 1024, maxRedirects: 0 };
/** An OCSP answer is a few kilobytes. */
export const OCSP_FETCH_LIMITS = { timeoutMs: 30_000, maxBytes: 1024 * 1024, maxRedirects: 0 };
const OCSP_PAGE = 500;

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
    private readonly renewals: RenewalsRepository,
    private readonly superseding: SupersedingPolicy,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.guard = outboundGuardFor(config);
  }

  /**
   * The task: CRLs due fetched, certificates judged (by OCSP those without a CRL), then every
   * current link's superseding renewal (docs/api-contract.md section 16) and every endpoint's
   * findings brought up to date: revocation and the clock change them.
   */
  async checkAll(): Promise<Record<string, number>> {
    const counts = { crlsFetched: 0, crlsFailed: 0, statusesChanged: 0, findingsChanged: 0, supersededChanged: 0 };
    for (const crl of await this.revocation.findCrlsToFetch(this.clock.now())) {
      if (await this.refreshCrl(crl.url, crl.issuerDnHashes)) counts.crlsFetched += 1;
      else counts.crlsFailed += 1;
    }
    counts.statusesChanged = (await this.revocation.judgeByCrl(this.clock.now(), STALE)).length;
    Object.assign(counts, await this.checkByOcsp());
    // First what links keep: renewal_not_deployed is read from it.
    counts.supersededChanged = await this.renewals.refreshSuperseded('all', await this.superseding.window());
    counts.findingsChanged = (await this.findings.recomputeAll()).changed;
    return counts;
  }

  /**
   * Certificates without an http(s) CRL, each asked of its OCSP responder (RFC 6960), a page at a
   * time; an answer that verified is reused until its nextUpdate, at most a day (ocspReuseUntil).
   */
  private async checkByOcsp(): Promise<{ ocspChecked: number; ocspFailed: number }> {
    const counts = { ocspChecked: 0, ocspFailed: 0 };
    for (let after = ''; ;) {
      const page = await this.revocation.findOcspTargets(this.clock.now(), after, OCSP_PAGE);
      if (page.length === 0) return counts;
      for (const target of page) {
        // One certificate that cannot be asked about (an unusual key) never stops the others.
        const verdict = await this.askResponder(target).catch(() => ({
          status: 'unknown',
          revokedAt: null,
          reason: null,
          error: 'The OCSP request could not be made for this certificate.',
          nextUpdate: null,
        }));
        const checkedAt = this.clock.now();
        const reuseUntil = verdict.error === null ? ocspReuseUntil(verdict.nextUpdate, checkedAt) : null;
        await this.revocation.saveOcspVerdict(target.fingerprint, verdict, checkedAt, reuseUntil);
        if (verdict.error === null) counts.ocspChecked += 1;
        else counts.ocspFailed += 1;
      }
      after = page[page.length - 1].fingerprint;
    }
  }

  private async askResponder(target: OcspTarget): Promise<OcspVerdict> {
    const unknown = (error: string) => ({ status: 'unknown', revokedAt: null, reason: null, error, nextUpdate: null });
    const issuer = target.issuers.find((der) => new X509Certificate(target.der).verify(new X509Certificate(der).publicKey));
    if (issuer === undefined) return unknown('No stored certificate of its issuer, so no OCSP request can be made.');
    const request = Buffer.from(await buildOcspRequest(target.der, issuer)).toString('base64');
    // RFC 6960 appendix A.1: a GET of the URL-encoded request after the responder's address.
    const url = `${target.ocspUrl.replace(/\/$/, '')}/${encodeURIComponent(request)}`;
    const fetched = await boundedFetch(url, { ...OCSP_FETCH_LIMITS, guard: this.guard, headers: { accept: 'application/ocsp-response' } });
    if (!fetched.ok) return unknown(`The OCSP responder could not be asked: ${describeFetchFailure(fetched.failure, OCSP_FETCH_LIMITS)}`);
    const answer = readVerifiedOcspResponse(fetched.body, target.der, issuer, this.clock.now());
    if (!answer.ok) return unknown(answer.error);
    return { status: answer.status, revokedAt: answer.revokedAt, reason: answer.reason, error: null, nextUpdate: answer.nextUpdate };
  }

  /** Fetches, verifies and stores one CRL; false when it could not be used (its certificates read unknown with the reason). */
  private async refreshCrl(url: string, issuerDnHashes: string[]): Promise<boolean> {
    const fetchedAt = this.clock.now();
    const fetched = await boundedFetch(url, { ...CRL_FETCH_LIMITS, guard: this.guard });
    if (!fetched.ok) {
      const error = `The CRL could not be fetched: ${describeFetchFailure(fetched.failure, CRL_FETCH_LIMITS)}`;
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

/** An OCSP answer, or why there is none (status unknown); `nextUpdate` as the responder gave it. */
interface OcspVerdict {
  status: string;
  revokedAt: Date | null;
  reason: string | null;
  error: string | null;
  nextUpdate: Date | null;
}

/**
 * Until when an OCSP answer that verified stands in for asking again: its nextUpdate, but at most
 * a day on, so a responder's change of mind is seen daily however far ahead it promises. Without a
 * nextUpdate the responder always has newer information (RFC 6960 section 4.2.2.1): null, asked
 * again at the next run. Never past nextUpdate: a stale answer is asked for again, not reused.
 */
export function ocspReuseUntil(nextUpdate: Date | null, now: Date): Date | null {
  if (nextUpdate === null) return null;
  return new Date(Math.min(nextUpdate.getTime(), now.getTime() + DAY_MS));
}

/** The list's nextUpdate, but at least an hour and at most a day away. */
export function nextFetchAt(nextUpdate: Date | null, now: Date): Date {
  const earliest = now.getTime() + HOUR_MS;
  const latest = now.getTime() + DAY_MS;
  return new Date(Math.min(latest, Math.max(earliest, nextUpdate?.getTime() ?? latest)));
}

/** A fetch failure in words for the certificate's `error`, never the server's text. */
function describeFetchFailure(failure: BoundedFetchFailure, limits: { maxBytes: number; timeoutMs: number }): string {
  if (failure.kind === 'too-large') return `it is larger than ${limits.maxBytes / 1024 / 1024} MiB.`;
  if (failure.kind === 'timeout' || failure.kind === 'connect-timeout') return `no answer within ${limits.timeoutMs / 1000} seconds.`;
  if (failure.kind === 'refused') return failure.message;
  if (failure.kind === 'http-status') return `the server answered HTTP ${failure.status}.`;
  if (failure.kind === 'network') return `the connection failed (${failure.code ?? 'network error'}).`;
  return `${failure.kind.replaceAll('-', ' ')}.`;
}
