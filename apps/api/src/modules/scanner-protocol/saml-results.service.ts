import { Injectable } from '@nestjs/common';
import { forEachConcurrently, type SamlScanResult } from '@certkeeper/domain';
import { CertificatesService } from '../certificates/certificates.service';
import { LinksService } from '../links/links.service';
import { SamlParser } from './saml-parser';
import { ScannerProtocolRepository } from './scanner-protocol.repository';
import type { Accepted, Settle } from './scan-outcomes';

// SAML results of different endpoints are applied this many at a time (the pool has 10
// connections); one endpoint's results always apply one after another, oldest first.
const SAML_CONCURRENCY = 10;
const SAML_USES = ['signing', 'encryption'] as const;

/** The SAML results of a post: each metadata fetch in its own transaction. */
@Injectable()
export class SamlResultsService {
  constructor(
    private readonly protocol: ScannerProtocolRepository,
    private readonly certificates: CertificatesService,
    private readonly links: LinksService,
    private readonly samlParser: SamlParser,
  ) {}

  /** Metadata fetches, each in its own transaction; one endpoint's oldest first, endpoints side by side. */
  async apply(scannerId: string, items: Accepted<SamlScanResult>[], settle: Settle): Promise<void> {
    const byEndpoint = new Map<string, Accepted<SamlScanResult>[]>();
    for (const item of items) byEndpoint.set(item.result.endpointId, [...(byEndpoint.get(item.result.endpointId) ?? []), item]);
    await forEachConcurrently([...byEndpoint.values()], SAML_CONCURRENCY, async (results) => {
      for (const { index, result } of results.sort((a, b) => Date.parse(a.result.scannedAt) - Date.parse(b.result.scannedAt))) {
        settle(index, { resultId: result.resultId, endpointId: result.endpointId, status: await this.applyOne(scannerId, result) });
      }
    });
  }

  /**
   * A metadata fetch: every certificate of the document linked by role with set semantics (what
   * the document no longer publishes moves to history), the payload on the endpoint, the document
   * kept once by its recomputed digest. The document is parsed on SamlParser's worker thread,
   * before the transaction opens, so neither the event loop nor a database connection waits on it.
   */
  private async applyOne(scannerId: string, result: SamlScanResult): Promise<'accepted' | 'duplicate'> {
    const scannedAt = new Date(result.scannedAt);
    const parsed = result.success && result.document !== null ? await this.samlParser.read(result.document) : null;
    const failure = !result.success
      ? result.error
      : parsed === null || parsed.entityCount === 0
        ? `the metadata could not be used: ${parsed?.problems.join('; ') || 'no document'}`
        : null;
    const warnings = parsed && failure === null && parsed.problems.length > 0 ? parsed.problems.join('; ') : null;
    return this.protocol.inTransaction(async (transaction) => {
      const runs = await this.protocol.recordRuns(
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
      await this.protocol.saveSamlDocument(parsed.digest, result.document, scannedAt, transaction);
      await this.certificates.storeParsed(
        parsed.certificates.map((c) => c.certificate),
        transaction,
      );
      if (!run.latest) return 'accepted';
      // The endpoint's row is locked: recordRuns updated it.
      await this.links.applySightings(
        SAML_USES.map((certUse) => ({
          endpointId: result.endpointId,
          certUse,
          fingerprints: parsed.certificates.filter((c) => c.uses.includes(certUse)).map((c) => c.certificate.fingerprintSha256),
          mode: 'replace' as const,
        })),
        transaction,
      );
      await this.protocol.saveSamlMetadata(
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
}
