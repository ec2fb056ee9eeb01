import { Injectable } from '@nestjs/common';
import { evaluateFindings, FINDING_CODES, FINDING_DEFINITIONS } from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import { SettingsService } from '../settings/settings.service';
import type { Transaction } from '../../database/transaction';
import { type FindingEndpointRow, FindingsRepository, type StoredFindingInputs } from './findings.repository';

const CRITICAL_CODES = FINDING_CODES.filter((code) => FINDING_DEFINITIONS[code].severity === 'critical');

// Endpoints whose inputs are read and evaluated at a time in a pass over all of them.
const PASS_BATCH = 1000;

/**
 * Keeps each endpoint's stored findings (docs/api-contract.md section 18) equal to what its inputs
 * say: called when an input changes (a scan result, an upload, a revocation check, a trust
 * refresh, the endpoint itself) and hourly for the clock (expired, not_yet_valid), so the list
 * filters on stored codes and never evaluates per request.
 */
@Injectable()
export class FindingsService {
  constructor(
    private readonly findings: FindingsRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  /** Recomputes these endpoints' findings; within `transaction` when given, so a write and its findings commit together. */
  async recompute(endpointIds: readonly string[], transaction?: Transaction): Promise<number> {
    const unique = [...new Set(endpointIds)].sort();
    let changed = 0;
    for (let start = 0; start < unique.length; start += PASS_BATCH) {
      changed += await this.recomputeBatch(unique.slice(start, start + PASS_BATCH), transaction);
    }
    return changed;
  }

  /** Recomputes the findings of the endpoints showing any of these certificates. */
  async recomputeForCertificates(fingerprints: readonly string[]): Promise<number> {
    return this.recompute(await this.findings.endpointIdsShowing(fingerprints));
  }

  /** Every endpoint, a batch at a time; answers how many endpoints' findings changed. */
  async recomputeAll(): Promise<{ endpoints: number; changed: number }> {
    let endpoints = 0;
    let changed = 0;
    for (let after: string | null = null; ;) {
      const ids = await this.findings.endpointIdsAfter(after, PASS_BATCH);
      if (ids.length === 0) return { endpoints, changed };
      endpoints += ids.length;
      changed += await this.recomputeBatch(ids);
      after = ids[ids.length - 1];
    }
  }

  /** Replaces the codes each endpoint ignores and recomputes what it shows. */
  async setIgnored(rows: { endpointId: string; ignored: string[] }[], transaction: Transaction): Promise<void> {
    await this.findings.saveIgnored(rows, transaction);
    await this.recompute(
      rows.map((row) => row.endpointId),
      transaction,
    );
  }

  /**
   * host: the chains the latest successful scans presented, leaf first (read by weak_signature),
   * and whether each was complete (chain_incomplete); answers the endpoints where either changed.
   */
  savePresentedChains(
    rows: { endpointId: string; fingerprints: string[]; complete: boolean }[],
    transaction: Transaction,
  ): Promise<string[]> {
    // In endpoint order, as the ingest locked the endpoints: two posts never wait on each other in a cycle.
    return this.findings.savePresentedChains(
      [...rows].sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1)),
      transaction,
    );
  }

  /** The dashboard's view (docs/api-contract.md section 18): endpoints in scope per code, and the panel, critical first. */
  async dashboard(
    subscriptions: readonly string[],
    limit: number,
  ): Promise<{ counts: Record<string, number>; endpoints: FindingEndpointRow[] }> {
    const [counts, endpoints] = await Promise.all([
      this.findings.countByCode(subscriptions),
      this.findings.findEndpointsWithFindings(subscriptions, CRITICAL_CODES, limit),
    ]);
    return { counts, endpoints };
  }

  private async recomputeBatch(endpointIds: string[], transaction?: Transaction): Promise<number> {
    const now = this.clock.now();
    const policy = await this.settings.alertPolicy();
    const rule = { now, renewalInfo: policy.renewalInfo };
    const changed = (await this.findings.loadInputs(endpointIds, rule, transaction)).flatMap((inputs) => {
      const codes = visibleCodes(inputs, now);
      return sameCodes(codes, inputs.codes) ? [] : [{ endpointId: inputs.endpointId, codes }];
    });
    await this.findings.saveCodes(changed, now, transaction);
    return changed.length;
  }
}

function visibleCodes(inputs: StoredFindingInputs, now: Date): string[] {
  return evaluateFindings(inputs, now).filter((code) => !inputs.ignored.includes(code));
}

function sameCodes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((code, index) => code === b[index]);
}
