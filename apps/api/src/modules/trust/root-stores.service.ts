import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { type ActorContext, AuditService } from '../audit/audit.service';
import type { CertificateSummaryDto } from '../certificates/certificates.dto';
import { toCertificateSummary } from '../certificates/certificates.mapper';
import {
  type CcadbTexts,
  countsOf,
  RootStoreDataError,
  RootStoreRefresher,
  type RootStoreRefreshCounts,
  UPLOAD_SOURCE,
} from './root-store-refresher';
import { type RootStoreRow, TrustRepository } from './trust.repository';

/** The /root-stores routes: the four stores, their anchors, and the operator's upload of CCADB data. */
@Injectable()
export class RootStoresService {
  constructor(
    private readonly trust: TrustRepository,
    private readonly refresher: RootStoreRefresher,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  listStores(): Promise<RootStoreRow[]> {
    return this.trust.listStores();
  }

  /** A window of the store's anchors by common name, with their number; 404 for an unknown store. */
  async anchorsOf(storeId: string, window: { limit: number; offset: number }): Promise<{ rows: CertificateSummaryDto[]; total: number }> {
    if (!(await this.trust.findStore(storeId)))
      throw new NotFoundException(`Unknown root store ${storeId}; known: mozilla, apple, microsoft, chrome.`);
    const { rows, total } = await this.trust.anchorsPage(storeId, window);
    const now = this.clock.now();
    return { rows: rows.map((row) => toCertificateSummary(row, now)), total };
  }

  /** The texts of an import form, applied like a refresh with source `upload` (all or nothing, 400 when unusable), and audited. */
  async importUpload(texts: CcadbTexts, actor: ActorContext): Promise<RootStoreRefreshCounts> {
    const result = await this.refresher.replaceFromCcadb(texts, UPLOAD_SOURCE).catch((error: unknown) => {
      throw error instanceof RootStoreDataError ? new BadRequestException(error.message) : error;
    });
    const counts = countsOf(result);
    await this.audit.record(actor, { action: 'root_stores:import', targetType: 'root_store', targetId: null, details: { counts } });
    return counts;
  }
}
