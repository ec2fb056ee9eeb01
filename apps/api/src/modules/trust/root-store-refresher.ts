import { Inject, Injectable, Logger } from '@nestjs/common';
import { anchorsFromPemReports, CcadbFormatError, parseCcadbRoots, ROOT_STORE_IDS, type RootStoreId } from '@certkeeper/domain/trust';
import type { ParsedCertificate } from '@certkeeper/domain/x509';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig, CCADB_SOURCES } from '../../config/app-config';
import { FindingsService } from '../findings/findings.service';
import { CertificatesService } from '../certificates/certificates.service';
import { TrustVerdictsService } from './trust-verdicts.service';
import { DEFAULT_FETCH_LIMITS, describeSource, fetchSourceTexts } from './source-fetch';
import { TrustRepository } from './trust.repository';

/** The `source` of anchor sets that came through POST /root-stores/import. */
export const UPLOAD_SOURCE = 'upload';

/** The CCADB data as texts: the all-included-roots CSV and the PEM reports with the roots' certificates. */
export interface CcadbTexts {
  matrix: string;
  pemReports: string[];
}

export interface RootStoreRefreshResult {
  /** Anchors per store after the refresh. */
  anchors: Record<RootStoreId, number>;
  /** CSV rows without a usable SHA-256 fingerprint. */
  skippedRows: number;
  /** The trust re-evaluation that followed. */
  evaluated: number;
  changed: number;
}

/** What a refresh or an import reports: the maintenance task's counts and the import's answer. */
export type RootStoreRefreshCounts = Record<RootStoreId, number> & { skippedRows: number; evaluated: number; changed: number };

/** The CCADB data cannot be used (renamed column, roots missing from the PEM reports...). Nothing was changed. */
export class RootStoreDataError extends Error {
  override readonly name = 'RootStoreDataError';
}

/**
 * Replaces the four stores' anchor sets from CCADB data: fetched from the configured sources by
 * the `refresh-root-stores` maintenance task, or uploaded by an operator of an air-gapped install.
 * Both go through replaceFromCcadb, so they check and apply the data the same way.
 */
@Injectable()
export class RootStoreRefresher {
  private readonly logger = new Logger('RootStores');

  constructor(
    private readonly trust: TrustRepository,
    private readonly certificates: CertificatesService,
    private readonly verdicts: TrustVerdictsService,
    private readonly findings: FindingsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The maintenance task: downloads every configured source (all must arrive whole), then applies them. */
  async refreshFromSources(): Promise<RootStoreRefreshCounts> {
    const sources = this.config.rootStoreSources ?? CCADB_SOURCES;
    const [matrix, ...pemReports] = await fetchSourceTexts([sources.csvUrl, ...sources.pemUrls], {
      ...DEFAULT_FETCH_LIMITS,
      timeoutMs: sources.fetchTimeoutMs,
    });
    const result = await this.replaceFromCcadb({ matrix, pemReports }, describeSource(sources.csvUrl));
    return countsOf(result);
  }

  /**
   * Checks the CCADB texts, then replaces every store's anchor set in one transaction (the
   * anchors' certificates stored in the global store on the way), then re-evaluates every
   * verdict. All or nothing: when the CSV cannot be read or the PEM reports lack any root it
   * lists, it throws RootStoreDataError and the previous sets, times and sources stay.
   */
  async replaceFromCcadb(texts: CcadbTexts, source: string): Promise<RootStoreRefreshResult> {
    const plan = planAnchorSets(texts);
    const at = this.clock.now();
    await this.trust.inTransaction(async (transaction) => {
      await this.trust.lockStores(transaction);
      await this.certificates.storeParsed(plan.certificates, transaction);
      for (const store of ROOT_STORE_IDS) await this.trust.replaceAnchors(store, plan.members[store], source, at, transaction);
    });
    const anchors = Object.fromEntries(ROOT_STORE_IDS.map((store) => [store, plan.members[store].length])) as Record<RootStoreId, number>;
    this.logger.log(
      `Root stores replaced from ${source}: ${ROOT_STORE_IDS.map((store) => `${store} ${anchors[store]}`).join(', ')}` +
        (plan.skippedRows > 0 ? `; ${plan.skippedRows} CSV rows skipped.` : '.'),
    );
    // After the commit: the full pass reads the new anchors from the database.
    const { evaluated, changed } = await this.verdicts.reevaluateAll();
    // A changed verdict changes untrusted and long_validity on the endpoints showing it.
    if (changed > 0) await this.findings.recomputeAll();
    return { anchors, skippedRows: plan.skippedRows, evaluated, changed };
  }
}

interface AnchorPlan {
  certificates: ParsedCertificate[];
  members: Record<RootStoreId, string[]>;
  skippedRows: number;
}

function planAnchorSets(texts: CcadbTexts): AnchorPlan {
  let parsed: ReturnType<typeof parseCcadbRoots>;
  try {
    parsed = parseCcadbRoots(texts.matrix);
  } catch (error) {
    if (error instanceof CcadbFormatError) throw new RootStoreDataError(error.message);
    throw error;
  }
  const { roots, skippedRows } = parsed;
  // A CSV cut short after its header would otherwise empty every store.
  if (roots.length === 0) throw new RootStoreDataError('The CCADB report lists no root that any store includes; nothing was changed.');
  const { anchors, missing } = anchorsFromPemReports(texts.pemReports, new Set(roots.map((root) => root.fingerprint)));
  if (missing.length > 0) {
    throw new RootStoreDataError(
      `The PEM reports lack ${missing.length} of the ${roots.length} roots the CCADB report lists (for example ${missing[0]}); ` +
        'a download may have been cut short. Nothing was changed.',
    );
  }
  const members = Object.fromEntries(
    ROOT_STORE_IDS.map((store) => [store, roots.filter((root) => root.stores.includes(store)).map((root) => root.fingerprint)]),
  ) as Record<RootStoreId, string[]>;
  return { certificates: [...anchors.values()], members, skippedRows };
}

export function countsOf(result: RootStoreRefreshResult): RootStoreRefreshCounts {
  return { ...result.anchors, skippedRows: result.skippedRows, evaluated: result.evaluated, changed: result.changed };
}
