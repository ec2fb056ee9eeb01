import { type AcmeCa, forEachConcurrently, renewalCertId } from '@certkeeper/domain';
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { SettingsService } from '../settings/settings.service';
import { AcmeRenewalInfoClient } from './acme-renewal-info.client';
import { type DueCertificate, type IssuerAnswer, RenewalInfoRepository, type RenewalInfoRow } from './renewal-info.repository';

// A CA that answered 404 for an issuer key id is asked about that key id again after this long.
const NOT_THIS_CA_KEPT_MS = 24 * 60 * 60 * 1000;
// Issuers asked at once; one issuer's certificates are asked one after another, so that its CA is
// learnt from the first answer and the others go straight to it.
const ISSUERS_AT_ONCE = 16;

interface RunCounts {
  certificates: number;
  requests: number;
  windows: number;
  notThisCa: number;
  failed: number;
}

/**
 * The maintenance task `refresh-renewal-info` (docs/api-contract.md section 15): asks the
 * configured ACME CAs for the suggested renewal window of every current, unexpired certificate
 * with an authority key identifier whose next check has come. A certificate is asked once per
 * Retry-After (nextCheckAt); the CA of each issuer key id is learnt from the first that answers;
 * a CA that failed once in a run is not asked again in that run, so one slow CA costs one deadline.
 */
@Injectable()
export class RenewalInfoRefresher {
  private readonly logger = new Logger('RenewalInfo');

  constructor(
    private readonly renewalInfo: RenewalInfoRepository,
    private readonly client: AcmeRenewalInfoClient,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  async refresh(): Promise<Record<string, number>> {
    const counts: RunCounts = { certificates: 0, requests: 0, windows: 0, notThisCa: 0, failed: 0 };
    const [policy, cas] = await Promise.all([this.settings.alertPolicy(), this.settings.acmeCas()]);
    if (!policy.renewalInfo || cas.length === 0) return { ...counts };
    const due = await this.renewalInfo.dueCertificates(this.clock.now());
    counts.certificates = due.length;
    const byIssuer = groupBy(due, (certificate) => certificate.authorityKeyId);
    const known = groupBy(await this.renewalInfo.issuerAnswers([...byIssuer.keys()]), (answer) => answer.authorityKeyId);
    const failing = new Set<string>();
    await forEachConcurrently([...byIssuer], ISSUERS_AT_ONCE, async ([authorityKeyId, certificates]) => {
      const issuerCas = new IssuerCas(cas, known.get(authorityKeyId) ?? [], this.clock.now());
      await this.refreshIssuer(authorityKeyId, certificates, issuerCas, failing, counts);
    });
    return { ...counts };
  }

  private async refreshIssuer(
    authorityKeyId: string,
    certificates: DueCertificate[],
    issuerCas: IssuerCas,
    failing: Set<string>,
    counts: RunCounts,
  ): Promise<void> {
    const answers: IssuerAnswer[] = [];
    const windows: RenewalInfoRow[] = [];
    for (const certificate of certificates) {
      const certId = renewalCertId(authorityKeyId, certificate.serialNumber);
      for (const ca of issuerCas.toAsk()) {
        if (failing.has(ca.name)) continue;
        counts.requests += 1;
        const answer = await this.client.ask(ca, certId);
        const checkedAt = this.clock.now();
        if (answer.kind === 'failed') {
          counts.failed += 1;
          if (!failing.has(ca.name)) this.logger.warn(`Renewal information from ${ca.name} not read this run: ${answer.reason}.`);
          failing.add(ca.name);
          continue;
        }
        if (answer.kind === 'unknown') {
          counts.notThisCa += 1;
          answers.push({ authorityKeyId, caName: ca.name, answers: false, checkedAt });
          issuerCas.notThis(ca);
          continue;
        }
        counts.windows += 1;
        if (issuerCas.learn(ca)) answers.push({ authorityKeyId, caName: ca.name, answers: true, checkedAt });
        const nextCheckAt = new Date(checkedAt.getTime() + answer.retryAfterSeconds * 1000);
        windows.push({ fingerprint: certificate.fingerprint, caName: ca.name, ...answer.window, checkedAt, nextCheckAt });
        break;
      }
    }
    await this.renewalInfo.recordIssuer(answers, windows);
  }
}

/** Which configured CAs to ask for one issuer key id: its learnt CA alone, else those that have not said 404 in the last 24 hours. */
class IssuerCas {
  private learnt: AcmeCa | null;
  private candidates: AcmeCa[];

  constructor(cas: readonly AcmeCa[], answers: readonly IssuerAnswer[], now: Date) {
    this.learnt = cas.find((ca) => answers.some((answer) => answer.answers && answer.caName === ca.name)) ?? null;
    const notThis = new Set(
      answers.filter((a) => !a.answers && now.getTime() - a.checkedAt.getTime() < NOT_THIS_CA_KEPT_MS).map((a) => a.caName),
    );
    this.candidates = cas.filter((ca) => !notThis.has(ca.name));
  }

  toAsk(): AcmeCa[] {
    return this.learnt ? [this.learnt] : this.candidates;
  }

  /** True when this answer is what makes the CA learnt (to be recorded). */
  learn(ca: AcmeCa): boolean {
    if (this.learnt?.name === ca.name) return false;
    this.learnt = ca;
    return true;
  }

  notThis(ca: AcmeCa): void {
    if (this.learnt?.name === ca.name) this.learnt = null;
    this.candidates = this.candidates.filter((candidate) => candidate.name !== ca.name);
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
