import { Injectable } from '@nestjs/common';
import {
  forEachConcurrently,
  type HostScanResult,
  type ParsedCertificate,
  parseFirstCertificate,
  type ResultOutcome,
  type SamlScanResult,
  type ScannerConfig,
  type ScanResult,
  type WorkItem,
} from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { isDatabaseUnreachable } from '../../database/errors';
import type { Transaction } from '../../database/transaction';
import { CertificatesService } from '../certificates/certificates.service';
import { TrustVerdictsService } from '../trust/trust-verdicts.service';
import type { CertUse } from '../links/endpoint-certificate.entity';
import { LinksService } from '../links/links.service';
import { ScannersService } from '../scanners/scanners.service';
import { type Assignment, type HistoryRow, IngestRepository } from './ingest.repository';
import type { CheckedResult } from './ingest.dto';
import { SamlParser } from './saml-parser';
import { inRounds } from './result-rounds';
import { ScanWorkSignal } from './scan-work-signal';

// SAML results of different endpoints are applied this many at a time (the pool has 10
// connections); one endpoint's results always apply one after another, oldest first.
const SAML_CONCURRENCY = 10;
// Agents report the same leaf every run; parsing (with its signature check) is the costly part.
const PARSED_CACHE_SIZE = 5000;
const SAML_USES = ['signing', 'encryption'] as const;
// An endpoint deleted between the assignment check and the transaction.
const GONE = { code: 404 as const, error: 'no endpoint has this id' };

type Outcome = 'accepted' | 'duplicate';
/** A result that passed the edge and assignment checks, with its place in the post. */
type Accepted<T extends ScanResult> = { index: number; result: T };
type Settle = (index: number, outcome: ResultOutcome) => void;
/** A handshake with its chain parsed (empty when none was presented or usable) and its failure, if any. */
type PreparedHost = Accepted<HostScanResult> & { chain: ParsedCertificate[]; failure: string | null };

const byFingerprint = (a: ParsedCertificate, b: ParsedCertificate) => (a.fingerprintSha256 < b.fingerprintSha256 ? -1 : 1);
/** The key under which a presented chain's completeness is asked once per post. */
const chainKey = (chain: ParsedCertificate[]) => chain.map((c) => c.fingerprintSha256).join(' ');

/** Why a result may not be applied to the endpoint it names, or null when it may. */
function refusalOf(assignment: Assignment | undefined, result: ScanResult): { code: 400 | 403 | 404; error: string } | null {
  if (!assignment) return GONE;
  if (!assignment.assigned) return { code: 403, error: 'this endpoint is not assigned to this scanner' };
  if (assignment.type !== result.type) return { code: 400, error: `this endpoint is a ${assignment.type} endpoint` };
  return null;
}

/**
 * The API side of the scanner protocol. It trusts nothing an agent computes: certificates and
 * metadata are parsed here, fingerprints and digests recomputed, and each result is checked
 * against the caller's assignment. A post's host results are applied together, set-based, in one
 * transaction (each alone should that fail), SAML results each in its own: one bad result never
 * blocks the others, and a result id seen before changes nothing.
 */
@Injectable()
export class IngestService {
  private readonly parsedCache = new Map<string, ParsedCertificate>();

  constructor(
    private readonly ingest: IngestRepository,
    private readonly scanners: ScannersService,
    private readonly certificates: CertificatesService,
    private readonly verdicts: TrustVerdictsService,
    private readonly links: LinksService,
    private readonly samlParser: SamlParser,
    private readonly signal: ScanWorkSignal,
    private readonly clock: Clock,
  ) {}

  /** The scanner's own record; the discovery networks it sweeps are added by the caller. */
  async configOf(scannerId: string): Promise<Omit<ScannerConfig, 'discoveryNetworks'>> {
    const scanner = await this.scanners.getScanner(scannerId);
    return {
      id: scanner.id,
      name: scanner.name,
      isDefault: scanner.isDefault,
      scanCronExpression: scanner.scanCronExpression,
      scanConcurrency: scanner.scanConcurrency,
    };
  }

  /**
   * The scanner's work; `dueOnly` keeps what is due now (never scanned, or a scan requested). With
   * `waitMs`, an empty due list is a long-poll (docs/decisions/0012-scan-now.md): held until work
   * becomes due (a notification from any replica) or the wait ends, then answered. The watch opens
   * before the first look, so work that arrives between the look and the wait is not missed.
   */
  async workOf(scannerId: string, dueOnly = false, waitMs = 0): Promise<WorkItem[]> {
    const scanner = await this.scanners.getScanner(scannerId);
    const find = () => this.ingest.findWork(scanner.id, scanner.isDefault, this.clock.now(), dueOnly);
    const watch = dueOnly && waitMs > 0 ? this.signal.watch(scanner.id, scanner.isDefault) : null;
    if (!watch) return find();
    const deadline = Date.now() + waitMs;
    try {
      for (;;) {
        const items = await find();
        const remaining = deadline - Date.now();
        if (items.length > 0 || remaining <= 0) return items;
        if ((await watch.next(remaining)) === 'closing') return items;
      }
    } finally {
      watch.close();
    }
  }

  /** The results of one post, checked at the edge (ScanResultsPipe): one outcome each, in order. */
  async ingestResults(scannerId: string, checked: CheckedResult[]): Promise<ResultOutcome[]> {
    const scanner = await this.scanners.getScanner(scannerId);
    const endpointIds = checked.flatMap((item) => (item.valid ? [item.result.endpointId] : []));
    const assignments = await this.ingest.findAssignments([...new Set(endpointIds)], scanner.id, scanner.isDefault);

    const outcomes: ResultOutcome[] = new Array<ResultOutcome>(checked.length);
    const hosts: Accepted<HostScanResult>[] = [];
    const samls: Accepted<SamlScanResult>[] = [];
    checked.forEach((item, index) => {
      if (!item.valid) {
        outcomes[index] = { resultId: item.resultId, endpointId: item.endpointId, status: 'rejected', code: 400, error: item.error };
        return;
      }
      const { result } = item;
      const refusal = refusalOf(assignments.get(result.endpointId), result);
      if (refusal) outcomes[index] = { resultId: result.resultId, endpointId: result.endpointId, status: 'rejected', ...refusal };
      else if (result.type === 'host') hosts.push({ index, result });
      else samls.push({ index, result });
    });

    const settle = (index: number, outcome: ResultOutcome) => (outcomes[index] = outcome);
    await Promise.all([this.ingestHosts(scanner.id, hosts, settle), this.ingestSamlResults(scanner.id, samls, settle)]);
    return outcomes;
  }

  /**
   * The handshakes of a post, applied together in one transaction with a few set-based
   * statements however many there are: a statement's and a transaction's fixed costs, not the
   * rows, were most of PostgreSQL's work per result (issue 16). Should the batch fail, each
   * result is applied alone, so one bad result never blocks the others.
   */
  private async ingestHosts(scannerId: string, items: Accepted<HostScanResult>[], settle: Settle): Promise<void> {
    if (items.length === 0) return;
    const rounds = inRounds(items.map((item) => this.prepareHost(item)));
    try {
      for (const [index, outcome] of await this.applyHostRounds(scannerId, rounds)) settle(index, outcome);
    } catch (error) {
      if (items.length === 1 || isDatabaseUnreachable(error)) throw error;
      await this.applyEachAlone(scannerId, rounds.flat(), settle);
    }
  }

  /**
   * The fallback of a batch that failed: each result in its own transaction, oldest first per
   * endpoint. A result that fails alone too fails the post, but only after the others were
   * applied (the agent posts the batch again; those come back as duplicates).
   */
  private async applyEachAlone(scannerId: string, items: PreparedHost[], settle: Settle): Promise<void> {
    let firstFailure: Error | null = null;
    for (const item of items) {
      try {
        for (const [index, outcome] of await this.applyHostRounds(scannerId, [[item]])) settle(index, outcome);
      } catch (error) {
        if (isDatabaseUnreachable(error)) throw error;
        firstFailure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    if (firstFailure !== null) throw firstFailure;
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
   * latest ones linked as `tls`, and their TLS profiles saved.
   */
  private applyHostRounds(scannerId: string, rounds: PreparedHost[][]): Promise<Map<number, ResultOutcome>> {
    return this.ingest.inTransaction(async (transaction) => {
      const outcomes = new Map<number, ResultOutcome>();
      const all = rounds.flat();
      const present = await this.ingest.lockEndpoints([...new Set(all.map((item) => item.result.endpointId))], transaction);
      const completeness = await this.chainCompleteness(all, transaction);
      const stored = new Set<string>();
      for (const round of rounds) {
        const runs = await this.ingest.recordRuns(
          round.filter((item) => present.has(item.result.endpointId)).map((item) => this.historyRow(scannerId, item, completeness)),
          transaction,
        );
        const fresh = round.filter((item) => runs.has(item.result.endpointId));
        const latest = fresh.filter((item) => runs.get(item.result.endpointId)!.latest);
        await this.storeChains(fresh, stored, transaction);
        // A late result from an agent's buffer is history only: it must not undo what a newer run saw.
        await this.links.recordScanSightings(
          'tls',
          latest.flatMap(({ result, chain }) =>
            chain.length > 0 ? [{ endpointId: result.endpointId, fingerprints: [chain[0].fingerprintSha256] }] : [],
          ),
          transaction,
        );
        await this.ingest.saveTlsProfiles(
          latest.flatMap(({ result, failure }) =>
            failure === null && result.tlsProfile
              ? [{ endpointId: result.endpointId, profile: result.tlsProfile, scannedAt: new Date(result.scannedAt) }]
              : [],
          ),
          transaction,
        );
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
      return outcomes;
    });
  }

  /** Metadata fetches, each in its own transaction; one endpoint's oldest first, endpoints side by side. */
  private async ingestSamlResults(scannerId: string, items: Accepted<SamlScanResult>[], settle: Settle): Promise<void> {
    const byEndpoint = new Map<string, Accepted<SamlScanResult>[]>();
    for (const item of items) byEndpoint.set(item.result.endpointId, [...(byEndpoint.get(item.result.endpointId) ?? []), item]);
    await forEachConcurrently([...byEndpoint.values()], SAML_CONCURRENCY, async (results) => {
      for (const { index, result } of results.sort((a, b) => Date.parse(a.result.scannedAt) - Date.parse(b.result.scannedAt))) {
        settle(index, { resultId: result.resultId, endpointId: result.endpointId, status: await this.ingestSaml(scannerId, result) });
      }
    });
  }

  /**
   * A metadata fetch: every certificate of the document linked by role with set semantics (what
   * the document no longer publishes moves to history), the payload on the endpoint, the document
   * kept once by its recomputed digest. The document is parsed on SamlParser's worker thread,
   * before the transaction opens, so neither the event loop nor a database connection waits on it.
   */
  private async ingestSaml(scannerId: string, result: SamlScanResult): Promise<Outcome> {
    const scannedAt = new Date(result.scannedAt);
    const parsed = result.success && result.document !== null ? await this.samlParser.read(result.document) : null;
    const failure = !result.success
      ? result.error
      : parsed === null || parsed.entityCount === 0
        ? `the metadata could not be used: ${parsed?.problems.join('; ') || 'no document'}`
        : null;
    const warnings = parsed && failure === null && parsed.problems.length > 0 ? parsed.problems.join('; ') : null;
    return this.ingest.inTransaction(async (transaction) => {
      const runs = await this.ingest.recordRuns(
        [
          {
            resultId: result.resultId,
            endpointId: result.endpointId,
            scannerId,
            scannedAt,
            success: failure === null,
            error: failure ?? warnings,
            resolvedIp: result.resolvedIp ?? null,
            fingerprint: null,
            tlsVersion: null,
            chainComplete: null,
          },
        ],
        transaction,
      );
      const run = runs.get(result.endpointId);
      if (!run) return 'duplicate';
      if (failure !== null || !parsed?.firstEntity || !result.document) return 'accepted';
      await this.ingest.saveSamlDocument(parsed.digest, result.document, scannedAt, transaction);
      await this.certificates.storeParsed(
        parsed.certificates.map((c) => c.certificate),
        transaction,
      );
      if (!run.latest) return 'accepted';
      for (const use of SAML_USES) {
        const declared = parsed.certificates.filter((c) => c.uses.includes(use)).map((c) => c.certificate);
        await this.sighting(result.endpointId, use, declared, transaction);
      }
      await this.ingest.saveSamlMetadata(
        result.endpointId,
        {
          ...parsed.firstEntity,
          fetchedAt: scannedAt.toISOString(),
          digest: parsed.digest,
          ...(parsed.entityCount > 1 ? { entityCount: parsed.entityCount } : {}),
        },
        transaction,
      );
      return 'accepted';
    });
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
    const existing = await this.ingest.findStoredFingerprints([...wanted.keys()], transaction);
    // In fingerprint order: two posts inserting the same new certificates wait on each other in
    // one order, never in a cycle.
    const missing = [...wanted.values()].filter((c) => !existing.has(c.fingerprintSha256)).sort(byFingerprint);
    if (missing.length > 0) await this.certificates.storeParsed(missing, transaction);
    for (const fingerprint of wanted.keys()) stored.add(fingerprint);
  }

  private async sighting(endpointId: string, certUse: CertUse, certificates: ParsedCertificate[], transaction: Transaction): Promise<void> {
    await this.links.recordSighting(
      { endpointId, certUse, fingerprints: certificates.map((c) => c.fingerprintSha256), mode: 'replace' },
      transaction,
    );
  }
}
