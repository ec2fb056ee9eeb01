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
import type { Transaction } from '../../database/transaction';
import { CertificatesService } from '../certificates/certificates.service';
import { TrustVerdictsService } from '../trust/trust-verdicts.service';
import type { CertUse } from '../links/endpoint-certificate.entity';
import { LinksService } from '../links/links.service';
import { ScannersService } from '../scanners/scanners.service';
import { IngestRepository } from './ingest.repository';
import type { CheckedResult } from './ingest.dto';
import { SamlParser } from './saml-parser';
import { ScanWorkSignal } from './scan-work-signal';

// Results of different endpoints are applied this many at a time (the pool has 10 connections);
// one endpoint's results always apply one after another, oldest first.
const INGEST_CONCURRENCY = 10;
// Agents report the same leaf every run; parsing (with its signature check) is the costly part.
const PARSED_CACHE_SIZE = 5000;
const RECENTLY_STORED_MS = 10 * 60_000;
const SAML_USES = ['signing', 'encryption'] as const;

type Outcome = 'accepted' | 'duplicate';

/**
 * The API side of the scanner protocol. It trusts nothing an agent computes: certificates and
 * metadata are parsed here, fingerprints and digests recomputed, and each result is checked
 * against the caller's assignment. Every result is applied in its own transaction, so one bad
 * result never blocks the others, and a result id seen before changes nothing.
 */
@Injectable()
export class IngestService {
  private readonly parsedCache = new Map<string, ParsedCertificate>();
  /** Fingerprint -> when this process last stored it; see storeUnlessRecent. */
  private readonly recentlyStored = new Map<string, number>();

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
    const accepted = new Map<string, { index: number; result: ScanResult }[]>();
    checked.forEach((item, index) => {
      if (!item.valid) {
        outcomes[index] = { resultId: item.resultId, endpointId: item.endpointId, status: 'rejected', code: 400, error: item.error };
        return;
      }
      const { result } = item;
      const ids = { resultId: result.resultId, endpointId: result.endpointId };
      const assignment = assignments.get(result.endpointId);
      const refusal = !assignment
        ? { code: 404 as const, error: 'no endpoint has this id' }
        : !assignment.assigned
          ? { code: 403 as const, error: 'this endpoint is not assigned to this scanner' }
          : assignment.type !== result.type
            ? { code: 400 as const, error: `this endpoint is a ${assignment.type} endpoint` }
            : null;
      if (refusal) outcomes[index] = { ...ids, status: 'rejected', ...refusal };
      else accepted.set(result.endpointId, [...(accepted.get(result.endpointId) ?? []), { index, result }]);
    });

    await forEachConcurrently([...accepted.values()], INGEST_CONCURRENCY, async (results) => {
      for (const { index, result } of results.sort((a, b) => Date.parse(a.result.scannedAt) - Date.parse(b.result.scannedAt))) {
        const status = result.type === 'host' ? await this.ingestHost(scanner.id, result) : await this.ingestSaml(scanner.id, result);
        outcomes[index] = { resultId: result.resultId, endpointId: result.endpointId, status };
      }
    });
    return outcomes;
  }

  /** A handshake: history, the leaf linked as `tls`, the chain stored, endpoint state, TLS profile. */
  private ingestHost(scannerId: string, result: HostScanResult): Promise<Outcome> {
    const scannedAt = new Date(result.scannedAt);
    const chain = result.success ? this.parseChain(result.chain) : [];
    const failure = !result.success ? result.error : chain === null ? 'the reported certificate chain could not be parsed' : null;
    const leaf = chain?.[0] ?? null;
    return this.ingest.inTransaction(async (transaction) => {
      const { fresh, latest } = await this.ingest.recordRun(
        {
          resultId: result.resultId,
          endpointId: result.endpointId,
          scannerId,
          scannedAt,
          success: failure === null,
          error: failure,
          resolvedIp: result.resolvedIp,
          fingerprint: leaf?.fingerprintSha256 ?? null,
          tlsVersion: result.tlsVersion,
          chainComplete: chain && chain.length > 0 ? await this.verdicts.isPresentedChainComplete(chain, transaction) : null,
        },
        transaction,
      );
      if (!fresh) return 'duplicate';
      if (chain && chain.length > 0) await this.storeUnlessRecent(chain, transaction);
      // A late result from an agent's buffer is history only: it must not undo what a newer run saw.
      if (latest && leaf) await this.sighting(result.endpointId, 'tls', [leaf], transaction);
      if (latest && failure === null && result.tlsProfile)
        await this.ingest.saveTlsProfile(result.endpointId, result.tlsProfile, scannedAt, transaction);
      return 'accepted';
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
      const { fresh, latest } = await this.ingest.recordRun(
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
        transaction,
      );
      if (!fresh) return 'duplicate';
      if (failure !== null || !parsed?.firstEntity || !result.document) return 'accepted';
      await this.ingest.saveSamlDocument(parsed.digest, result.document, scannedAt, transaction);
      await this.certificates.storeParsed(
        parsed.certificates.map((c) => c.certificate),
        transaction,
      );
      if (!latest) return 'accepted';
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

  /**
   * Stores certificates, skipping the insert for those this process stored in the last few
   * minutes: a steady fleet reports the same certificates every cycle, and the insert is the
   * costliest statement of a run.
   */
  private async storeUnlessRecent(certificates: ParsedCertificate[], transaction: Transaction): Promise<void> {
    const now = Date.now();
    const stale = certificates.filter((c) => (this.recentlyStored.get(c.fingerprintSha256) ?? 0) < now - RECENTLY_STORED_MS);
    if (stale.length === 0) return;
    await this.certificates.storeParsed(stale, transaction);
    for (const certificate of stale) {
      if (this.recentlyStored.size >= PARSED_CACHE_SIZE) this.recentlyStored.delete(this.recentlyStored.keys().next().value as string);
      this.recentlyStored.set(certificate.fingerprintSha256, now);
    }
  }

  private async sighting(endpointId: string, certUse: CertUse, certificates: ParsedCertificate[], transaction: Transaction): Promise<void> {
    await this.links.recordSighting(
      { endpointId, certUse, fingerprints: certificates.map((c) => c.fingerprintSha256), mode: 'replace' },
      transaction,
    );
  }
}
