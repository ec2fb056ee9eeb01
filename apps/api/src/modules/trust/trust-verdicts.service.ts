import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { TrustEvaluator, type TrustVerdict } from '@certkeeper/domain/trust';
import { isCompleteChain, type ParsedCertificate } from '@certkeeper/domain/x509';
import type { Transaction } from '../../database/transaction';
import { TrustVerdictsRepository, type VerdictUpdate } from './trust-verdicts.repository';

/** Certificates read and written per round of a full pass: bounded memory, however large the store. */
const PASS_PAGE_SIZE = 2000;

export interface FullPassResult {
  evaluated: number;
  changed: number;
}

/**
 * Keeps the stored verdicts (`trustedBy`, `isTrustAnchor`) true. Verdicts live in the database,
 * so every replica answers the same.
 *
 * - New certificates are evaluated in the transaction that stores them, against the issuers above
 *   them, so an upload's answer already carries its verdict.
 * - A full pass re-evaluates everything: after the anchors change (seed, refresh, import), and in
 *   the background after a new CA arrives, since it may complete paths of certificates stored
 *   before it. Passes run one at a time across replicas; requests made while one runs coalesce into
 *   a single next pass.
 */
@Injectable()
export class TrustVerdictsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('TrustVerdicts');
  /** The pass requested last; a new one starts after it. */
  private latest: Promise<FullPassResult> = Promise.resolve({ evaluated: 0, changed: 0 });
  /**
   * The pass that has not read anything yet: what it reads will include everything committed
   * before now, so a new request joins it instead of queueing another.
   */
  private joinable: Promise<FullPassResult> | null = null;
  private stopping = false;

  constructor(private readonly verdicts: TrustVerdictsRepository) {}

  /** Evaluates certificates just stored in `transaction`; call before it commits. */
  async evaluateArrivals(stored: ParsedCertificate[], transaction: Transaction): Promise<void> {
    const arrivals = [...new Map(stored.map((certificate) => [certificate.fingerprintSha256, certificate])).values()];
    if (arrivals.length === 0) return;
    await this.verdicts.holdArrivalsLock(transaction);
    const names = distinct(arrivals.flatMap((certificate) => [certificate.issuerDnHash, certificate.subjectDnHash]));
    const issuers = await this.verdicts.issuersAbove(names, transaction);
    // The arrivals' own subjects are among the names, so any anchor they might copy is in the pool to compare keys with.
    const anchors = await this.verdicts.anchors(distinct([...names, ...issuers.map((issuer) => issuer.subjectDnHash)]), transaction);
    const evaluator = new TrustEvaluator(issuers, anchors);
    await evaluator.prepare(arrivals);
    const verdicts = arrivals.map((certificate) => ({
      fingerprint: certificate.fingerprintSha256,
      verdict: evaluator.evaluate(certificate),
    }));
    // Only the arrivals' rows are written here: touching their issuers' rows would make concurrent uploads wait on each other.
    const verified = evaluator.takeNewlyVerified();
    await this.verdicts.writeVerdicts(
      verdicts.map(({ fingerprint, verdict }) => ({ fingerprint, verdict, verifiedIssuers: [...(verified.get(fingerprint) ?? [])] })),
      transaction,
    );
    if (arrivals.some((certificate) => certificate.isCa)) this.requestFullPass();
  }

  /**
   * Whether a chain as a server presented it is complete on its own and in order: it ends at a
   * self-signed certificate, at an anchor, or at a certificate an anchor issued (servers need not
   * send the root: clients have it).
   */
  async isPresentedChainComplete(chain: ParsedCertificate[], transaction: Transaction): Promise<boolean> {
    const last = chain.at(-1);
    if (last === undefined) return false;
    const anchors = await this.verdicts.anchors(distinct([last.subjectDnHash, last.issuerDnHash]), transaction);
    const sameKeyId = (a: string | null, b: string | null) => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
    return isCompleteChain(chain, (end) =>
      anchors.some(
        (anchor) =>
          (anchor.subjectDnHash === end.subjectDnHash && sameKeyId(anchor.subjectKeyId, end.subjectKeyId)) ||
          (anchor.subjectDnHash === end.issuerDnHash &&
            (end.authorityKeyId === null || sameKeyId(anchor.subjectKeyId, end.authorityKeyId))),
      ),
    );
  }

  /** A full pass in the background; failures are logged (the next request or refresh retries). */
  requestFullPass(): void {
    this.reevaluateAll().catch((error: unknown) =>
      this.logger.error(`Trust re-evaluation failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /** Resolves with a pass that read the database after this call, so it saw what the caller committed. */
  reevaluateAll(): Promise<FullPassResult> {
    if (this.joinable) return this.joinable;
    const pass: Promise<FullPassResult> = this.latest
      .catch(() => undefined)
      .then(() => this.verdicts.withFullPassLock(() => this.runFullPass(pass)));
    this.joinable = pass;
    this.latest = pass;
    return pass;
  }

  /** Lets a pass in progress stop at its next page, so shutdown does not wait for a whole store. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.latest.catch(() => undefined);
  }

  private async runFullPass(pass: Promise<FullPassResult>): Promise<FullPassResult> {
    if (this.stopping) return { evaluated: 0, changed: 0 };
    // Arrivals still evaluating against an older pool commit first; they are in the pages below.
    await this.verdicts.waitForArrivals();
    // From here on it reads: a later request needs a pass of its own.
    if (this.joinable === pass) this.joinable = null;
    const [issuers, anchors] = await Promise.all([this.verdicts.allIssuers(), this.verdicts.anchors()]);
    const evaluator = new TrustEvaluator(issuers, anchors);
    const result: FullPassResult = { evaluated: 0, changed: 0 };
    for (let after = ''; !this.stopping;) {
      const page = await this.verdicts.pageAfter(after, PASS_PAGE_SIZE);
      if (page.length === 0) break;
      const updates = new Map<string, VerdictUpdate>();
      await evaluator.prepare(page);
      for (const certificate of page) {
        const verdict = evaluator.evaluate(certificate);
        result.evaluated += 1;
        if (sameVerdict(verdict, certificate.stored)) continue;
        result.changed += 1;
        updates.set(certificate.fingerprintSha256, { fingerprint: certificate.fingerprintSha256, verdict, verifiedIssuers: [] });
      }
      // Signatures verified on this page, of its certificates or of issuers on any page.
      for (const [fingerprint, issuerFingerprints] of evaluator.takeNewlyVerified()) {
        const update = updates.get(fingerprint) ?? { fingerprint, verdict: null, verifiedIssuers: [] };
        update.verifiedIssuers = [...issuerFingerprints];
        updates.set(fingerprint, update);
      }
      await this.verdicts.writeVerdicts([...updates.values()]);
      after = page[page.length - 1].fingerprintSha256;
    }
    if (result.changed > 0) this.logger.log(`Trust re-evaluated: ${result.evaluated} certificates, ${result.changed} verdicts changed.`);
    return result;
  }
}

function sameVerdict(a: TrustVerdict, b: TrustVerdict): boolean {
  return a.isTrustAnchor === b.isTrustAnchor && a.trustedBy.join() === b.trustedBy.join();
}

function distinct(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}
