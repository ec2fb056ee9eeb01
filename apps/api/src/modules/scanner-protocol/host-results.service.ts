import { Injectable } from '@nestjs/common';
import type { HostScanResult, ResultOutcome } from '@certkeeper/domain/protocol';
import { type ParsedCertificate, parseFirstCertificate } from '@certkeeper/domain/x509';
import { isDatabaseUnreachable } from '../../database/errors';
import type { Transaction } from '../../database/transaction';
import { CertificatesService } from '../certificates/certificates.service';
import { FindingsService } from '../findings/findings.service';
import { LinksService } from '../links/links.service';
import { TrustVerdictsService } from '../trust/trust-verdicts.service';
import { inRounds } from './result-rounds';
import { type Accepted, GONE, type Settle } from './scan-outcomes';
import { type HistoryRow, ScannerProtocolRepository } from './scanner-protocol.repository';

// Agents report the same leaf every run; parsing (with its signature check) is the costly part.
const PARSED_CACHE_SIZE = 5000;

/** A handshake with its chain parsed (empty when none was presented or usable) and its failure, if any. */
type PreparedHost = Accepted<HostScanResult> & { chain: ParsedCertificate[]; failure: string | null };

const byFingerprint = (a: ParsedCertificate, b: ParsedCertificate) => (a.fingerprintSha256 < b.fingerprintSha256 ? -1 : 1);
/** The key under which a presented chain's completeness is asked once per post. */
const chainKey = (chain: ParsedCertificate[]) => chain.map((c) => c.fingerprintSha256).join(' ');

/**
 * The host results of a post, applied together, set-based, in one transaction (each alone should
 * that fail). Certificates are parsed here, fingerprints recomputed: nothing an agent computes is
 * trusted.
 */
@Injectable()
export class HostResultsService {
  private readonly parsedCache = new Map<string, ParsedCertificate>();

  constructor(
    private readonly protocol: ScannerProtocolRepository,
    private readonly certificates: CertificatesService,
    private readonly verdicts: TrustVerdictsService,
    private readonly links: LinksService,
    private readonly findings: FindingsService,
  ) {}

  /**
   * The handshakes of a post, applied together in one transaction with a few set-based
   * statements however many there are (docs/performance.md says why). Should the batch fail, each
   * result is applied alone, so one bad result never blocks the others. Answers the endpoints
   * whose findings may have changed: those whose failing, leaf, chain or TLS profile changed. A
   * steady re-sighting changes none of them and costs no recomputation.
   */
  async apply(scannerId: string, items: Accepted<HostScanResult>[], settle: Settle): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const rounds = inRounds(items.map((item) => this.prepareHost(item)));
    try {
      return await this.applyHostRounds(scannerId, rounds, settle);
    } catch (error) {
      if (items.length === 1 || isDatabaseUnreachable(error)) throw error;
      return this.applyEachAlone(scannerId, rounds.flat(), settle);
    }
  }

  /**
   * The fallback of a batch that failed: each result in its own transaction, oldest first per
   * endpoint. A result that fails alone too fails the post, but only after the others were
   * applied (the agent posts the batch again; those come back as duplicates).
   */
  private async applyEachAlone(scannerId: string, items: PreparedHost[], settle: Settle): Promise<Set<string>> {
    let firstFailure: Error | null = null;
    const changed = new Set<string>();
    for (const item of items) {
      try {
        for (const endpointId of await this.applyHostRounds(scannerId, [[item]], settle)) changed.add(endpointId);
      } catch (error) {
        if (isDatabaseUnreachable(error)) throw error;
        firstFailure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    if (firstFailure !== null) throw firstFailure;
    return changed;
  }

  /** The chain parsed (or the reason it cannot be used) before any transaction opens. */
  private prepareHost({ index, result }: Accepted<HostScanResult>): PreparedHost {
    const chain = result.success ? this.parseChain(result.chain) : [];
    const failure = !result.success ? result.error : chain === null ? 'the reported certificate chain could not be parsed' : null;
    return { index, result, chain: chain ?? [], failure };
  }

  /**
   * One transaction: the endpoints locked (in id order), then per round a history row for each
   * result and the outcome on its endpoint, the chains of fresh results stored, the leaves of the
   * latest ones linked as `tls`, and their TLS profiles saved. Outcomes are settled once it commits.
   */
  private async applyHostRounds(scannerId: string, rounds: PreparedHost[][], settle: Settle): Promise<Set<string>> {
    const { outcomes, changed } = await this.protocol.inTransaction(async (transaction) => {
      const outcomes = new Map<number, ResultOutcome>();
      const changed = new Set<string>();
      const all = rounds.flat();
      const present = await this.protocol.lockEndpoints([...new Set(all.map((item) => item.result.endpointId))], transaction);
      const completeness = await this.chainCompleteness(all, transaction);
      const stored = new Set<string>();
      for (const round of rounds) {
        const runs = await this.protocol.recordRuns(
          round.filter((item) => present.has(item.result.endpointId)).map((item) => this.historyRow(scannerId, item, completeness)),
          transaction,
        );
        const fresh = round.filter((item) => runs.has(item.result.endpointId));
        const latest = fresh.filter((item) => runs.get(item.result.endpointId)!.latest);
        for (const { result, failure } of latest) {
          const state = present.get(result.endpointId)!;
          if (state.failing !== (failure !== null)) changed.add(result.endpointId);
          state.failing = failure !== null;
        }
        await this.storeChains(fresh, stored, transaction);
        // A late result from an agent's buffer is history only: it must not undo what a newer run saw.
        await this.links.applySightings(
          latest.flatMap(({ result, chain }) =>
            chain.length > 0
              ? [
                  {
                    endpointId: result.endpointId,
                    certUse: 'tls' as const,
                    fingerprints: [chain[0].fingerprintSha256],
                    mode: 'replace' as const,
                  },
                ]
              : [],
          ),
          transaction,
        );
        const chainsChanged = await this.findings.savePresentedChains(
          latest.flatMap(({ result, chain }) =>
            chain.length > 0
              ? [
                  {
                    endpointId: result.endpointId,
                    fingerprints: chain.map((c) => c.fingerprintSha256),
                    complete: completeness.get(chainKey(chain))!,
                  },
                ]
              : [],
          ),
          transaction,
        );
        const profilesChanged = await this.protocol.saveTlsProfiles(
          latest.flatMap(({ result, failure }) =>
            failure === null && result.tlsProfile
              ? [{ endpointId: result.endpointId, profile: result.tlsProfile, scannedAt: new Date(result.scannedAt) }]
              : [],
          ),
          transaction,
        );
        for (const endpointId of [...chainsChanged, ...profilesChanged]) changed.add(endpointId);
        for (const { index, result } of round) {
          const ids = { resultId: result.resultId, endpointId: result.endpointId };
          outcomes.set(
            index,
            !present.has(result.endpointId)
              ? { ...ids, status: 'rejected', ...GONE }
              : { ...ids, status: runs.has(result.endpointId) ? 'accepted' : 'duplicate' },
          );
        }
      }
      return { outcomes, changed };
    });
    for (const [index, outcome] of outcomes) settle(index, outcome);
    return changed;
  }

  /** Each PEM of the presented chain parsed here (or found parsed before); null when any is not a certificate. */
  private parseChain(pems: string[]): ParsedCertificate[] | null {
    const chain: ParsedCertificate[] = [];
    for (const pem of pems) {
      let certificate = this.parsedCache.get(pem);
      if (!certificate) {
        const parsed = parseFirstCertificate(pem);
        if ('error' in parsed) return null;
        certificate = parsed.certificate;
        if (this.parsedCache.size >= PARSED_CACHE_SIZE) this.parsedCache.delete(this.parsedCache.keys().next().value as string);
        this.parsedCache.set(pem, certificate);
      }
      chain.push(certificate);
    }
    return chain;
  }

  /** The history row of a handshake; chainComplete only for a chain that was presented and parsed. */
  private historyRow(scannerId: string, { result, chain, failure }: PreparedHost, completeness: Map<string, boolean>): HistoryRow {
    return {
      resultId: result.resultId,
      endpointId: result.endpointId,
      scannerId,
      scannedAt: new Date(result.scannedAt),
      success: failure === null,
      error: failure,
      resolvedIp: result.resolvedIp,
      fingerprint: chain[0]?.fingerprintSha256 ?? null,
      tlsVersion: result.tlsVersion,
      chainComplete: chain.length > 0 ? completeness.get(chainKey(chain))! : null,
    };
  }

  /** Whether each distinct presented chain is complete, asked once per chain however many endpoints present it. */
  private async chainCompleteness(items: PreparedHost[], transaction: Transaction): Promise<Map<string, boolean>> {
    const completeness = new Map<string, boolean>();
    for (const { chain } of items) {
      const key = chainKey(chain);
      if (chain.length > 0 && !completeness.has(key))
        completeness.set(key, await this.verdicts.isPresentedChainComplete(chain, transaction));
    }
    return completeness;
  }

  /**
   * Stores the chains of fresh results, each certificate once: only those not stored yet, asked
   * of the database (never of a cache that a purge could make wrong), so the steady state, where
   * every certificate is known, costs one lookup and no parse-to-row work.
   */
  private async storeChains(items: PreparedHost[], stored: Set<string>, transaction: Transaction): Promise<void> {
    const wanted = new Map<string, ParsedCertificate>();
    for (const { chain } of items) for (const c of chain) if (!stored.has(c.fingerprintSha256)) wanted.set(c.fingerprintSha256, c);
    if (wanted.size === 0) return;
    const existing = await this.protocol.findStoredFingerprints([...wanted.keys()], transaction);
    // In fingerprint order: two posts inserting the same new certificates wait on each other in
    // one order, never in a cycle.
    const missing = [...wanted.values()].filter((c) => !existing.has(c.fingerprintSha256)).sort(byFingerprint);
    if (missing.length > 0) await this.certificates.storeParsed(missing, transaction);
    for (const fingerprint of wanted.keys()) stored.add(fingerprint);
  }
}
