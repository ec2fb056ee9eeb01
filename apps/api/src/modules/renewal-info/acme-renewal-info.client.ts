import {
  type AcmeCa,
  directoryRenewalInfo,
  parseRenewalInfo,
  type RenewalWindow,
  renewalInfoUrl,
  retryAfterSeconds,
} from '@certkeeper/domain';
import { boundedFetch, type BoundedFetchFailure, type OutboundGuard } from '@certkeeper/net';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { outboundGuardFor } from '../../common/net/outbound-guard';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** What a CA said about one certificate (RFC 9773). */
export type RenewalInfoAnswer =
  | { kind: 'window'; window: RenewalWindow; retryAfterSeconds: number }
  /** 404: the CA does not know the certificate, so it is not this issuer's CA. */
  | { kind: 'unknown' }
  /** No usable answer (unreachable, slow, too large, malformed, another status); `reason` names no secret and quotes nothing the CA sent. */
  | { kind: 'failed'; reason: string };

// docs/api-contract.md section 15: every request has these limits, and OUTBOUND_DENY.
const DEADLINE_MS = 10_000;
const MAX_BYTES = 64 * 1024;
const DIRECTORY_KEPT_MS = 24 * 60 * 60 * 1000;
const REQUEST_HEADERS = { accept: 'application/json', 'user-agent': 'Certkeeper renewal information' };

interface KeptDirectory {
  renewalInfo: Promise<string | null | { failed: string }>;
  until: number;
}

/**
 * Asks ACME CAs for renewal information: each CA's directory (read once, kept 24 hours on this
 * replica) for its `renewalInfo` URL, then `GET {renewalInfo}/{certID}`. Redirects are not
 * followed: RFC 9773 gives them no role, and each hop would be another address to check.
 */
@Injectable()
export class AcmeRenewalInfoClient {
  private readonly guard: OutboundGuard;
  private readonly directories = new Map<string, KeptDirectory>();

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.guard = outboundGuardFor(config);
  }

  async ask(ca: AcmeCa, certId: string): Promise<RenewalInfoAnswer> {
    const renewalInfo = await this.renewalInfoOf(ca);
    if (renewalInfo === null) return { kind: 'unknown' };
    if (typeof renewalInfo === 'object') return { kind: 'failed', reason: renewalInfo.failed };
    const result = await this.get(renewalInfoUrl(renewalInfo, certId));
    if (!result.ok) {
      if (result.failure.kind === 'http-status' && result.failure.status === 404) return { kind: 'unknown' };
      return { kind: 'failed', reason: `its renewal information ${describeFailure(result.failure)}` };
    }
    const parsed = parseRenewalInfo(result.body.toString('utf8'));
    if ('problem' in parsed) return { kind: 'failed', reason: `its renewal information is unusable: ${parsed.problem}` };
    const retryAfter = result.headers['retry-after'];
    return { kind: 'window', window: parsed, retryAfterSeconds: retryAfterSeconds(retryAfter, this.clock.now()) };
  }

  /** The CA's renewalInfo URL, null when its directory offers none, or why the directory could not be read (not kept: asked again next time). */
  private renewalInfoOf(ca: AcmeCa): Promise<string | null | { failed: string }> {
    const now = this.clock.now().getTime();
    const kept = this.directories.get(ca.directoryUrl);
    if (kept && kept.until > now) return kept.renewalInfo;
    const renewalInfo = this.get(ca.directoryUrl).then((result) => {
      if (result.ok) return directoryRenewalInfo(result.body.toString('utf8'));
      this.directories.delete(ca.directoryUrl);
      return { failed: `its directory ${describeFailure(result.failure)}` };
    });
    this.directories.set(ca.directoryUrl, { renewalInfo, until: now + DIRECTORY_KEPT_MS });
    return renewalInfo;
  }

  private get(url: string) {
    return boundedFetch(url, { maxBytes: MAX_BYTES, timeoutMs: DEADLINE_MS, maxRedirects: 0, guard: this.guard, headers: REQUEST_HEADERS });
  }
}

/** The failures an operator can act on in their own words; the rest by kind. Never text the CA sent. */
function describeFailure(failure: BoundedFetchFailure): string {
  if (failure.kind === 'refused') return `is refused by OUTBOUND_DENY: ${failure.message}`;
  if (failure.kind === 'timeout' || failure.kind === 'connect-timeout') return `gave no complete answer within ${DEADLINE_MS / 1000} s`;
  if (failure.kind === 'too-large') return `is larger than ${MAX_BYTES / 1024} KiB`;
  if (failure.kind === 'http-status') return `answered HTTP ${failure.status}`;
  if (failure.kind === 'network') return `could not be reached (${failure.code ?? 'network error'})`;
  return `could not be read (${failure.kind})`;
}
