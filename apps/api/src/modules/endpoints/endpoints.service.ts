import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { expiringWithinBefore } from '@certkeeper/domain';
import { randomUUID } from 'node:crypto';
import { Clock } from '../../common/clock';
import type { CsvExport } from '../../common/http/csv/csv-export';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { FindingsService } from '../findings/findings.service';
import { LinksRepository } from '../links/links.repository';
import { buildEndpointRecord, type RecordMode } from './endpoint-record';
import {
  type BulkResultDto,
  type EndpointDetailResponseDto,
  type EndpointInputDto,
  type EndpointListItemDto,
  type EndpointListQueryDto,
  EndpointCsvRowDto,
  EndpointResponseDto,
  ScanHistoryRowDto,
} from './endpoints.dto';
import { toBulkResult, toCurrentCertificate, toEndpointListItem, toEndpointResponse, toScanHistoryRow } from './endpoints.mapper';
import { type BulkRow, readEndpointRow } from './bulk-rows';
import {
  type EndpointCriteria,
  type EndpointListRow,
  endpointIdentity,
  type EndpointRecord,
  type EndpointRow,
  EndpointsRepository,
} from './endpoints.repository';
import type { ScanHistoryEntity } from './scan-history.entity';
import type { TlsProfileEntity } from './tls-profile.entity';

/** What a scanner scans: enabled, not scan-exempt host and saml endpoints (the work route's rule). */
function isScannable(record: Pick<EndpointRecord, 'type' | 'enabled' | 'scanExempt'>): boolean {
  return record.type !== 'manual' && record.enabled && !record.scanExempt;
}

/** The list's filters and window as its query names them; search asks with `q` and a window only. */
export type EndpointListQuery = Partial<Omit<EndpointListQueryDto, 'limit' | 'offset' | 'format'>> & { limit: number; offset: number };

function endpointCriteria(query: EndpointListQuery, now: Date): EndpointCriteria {
  return {
    type: query.type,
    enabled: query.enabled,
    hasError: query.has_error,
    tags: query.tag,
    q: query.q,
    starttls: query.starttls,
    expiringBefore: query.expires_within === undefined ? undefined : expiringWithinBefore(query.expires_within, now),
    superseded: query.superseded,
    findings: query.finding,
    hasFindings: query.has_findings,
    sort: query.sort,
  };
}

export type BulkRowOutcome =
  { index: number; ok: true; status: 201; endpoint: EndpointRow } | { index: number; ok: false; status: 400 | 409; error: string };

const DUPLICATE_MESSAGE = {
  host: 'an endpoint with the same dnsName, port, ipAddress and scanner already exists',
  saml: 'an endpoint with the same metadataUrl and scanner already exists',
} as const;

@Injectable()
export class EndpointsService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly links: LinksRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly findings: FindingsService,
  ) {}

  /**
   * The window of endpoints the list filters match, as list items (each with whether it serves a
   * certificate whose renewal is not deployed), and the number of all matches.
   */
  async listEndpoints(query: EndpointListQuery): Promise<{ items: EndpointListItemDto[]; total: number }> {
    const now = this.clock.now();
    const criteria = { ...endpointCriteria(query, now), limit: query.limit, offset: query.offset };
    const { rows, total } = await this.endpoints.findPage(criteria);
    const superseded = await this.endpoints.findRenewalNotDeployed(rows.map((row) => row.id));
    const items = rows.map((row): EndpointListRow => ({ ...row, renewalNotDeployed: superseded.has(row.id) }));
    return { items: items.map((row) => toEndpointListItem(row, now)), total };
  }

  countEndpoints(criteria: EndpointCriteria): Promise<number> {
    return this.endpoints.countMatching(criteria);
  }

  /** Every endpoint the list filters match, as the CSV form of the same items. */
  exportEndpoints(query: EndpointListQuery): CsvExport<EndpointRow> {
    const now = this.clock.now();
    return {
      list: 'endpoints',
      item: EndpointCsvRowDto,
      open: () => this.endpoints.streamMatching(endpointCriteria(query, now)),
      // The finding codes alone: a CSV cell joins them with `; `.
      toItem: (row) => ({ ...toEndpointResponse(row, now), findings: row.findings }),
      now,
    };
  }

  /** The endpoint with a summary of each current certificate. */
  async getEndpoint(id: string): Promise<EndpointDetailResponseDto> {
    const now = this.clock.now();
    const [endpoint, current] = await Promise.all([this.requireEndpoint(id), this.links.findCurrentCertificates([id])]);
    return { ...toEndpointResponse(endpoint, now), currentCertificates: current.map((row) => toCurrentCertificate(row, now)) };
  }

  private async requireEndpoint(id: string): Promise<EndpointRow> {
    const endpoint = await this.endpoints.findById(id);
    if (!endpoint) throw new NotFoundException('Endpoint not found.');
    return endpoint;
  }

  async createEndpoint(input: EndpointInputDto, actor: ActorContext): Promise<EndpointResponseDto> {
    const [outcome] = await this.createMany([input], actor, 'endpoint:create');
    if (!outcome.ok)
      throw outcome.status === 409 ? new ConflictException(`${capitalise(outcome.error)}.`) : new BadRequestException(outcome.error);
    return toEndpointResponse(outcome.endpoint, this.clock.now());
  }

  /**
   * Bulk import: every row is validated and checked on its own, good rows are inserted together,
   * and a bad row never blocks a good one. A row already refused at the edge is its sentence.
   */
  async bulkCreate(rows: BulkRow[], actor: ActorContext): Promise<BulkResultDto> {
    return toBulkResult(await this.createMany(rows, actor, 'endpoint:bulk_create'), this.clock.now());
  }

  /**
   * Endpoint records from elsewhere in the application (discovery promotes them), through the
   * very checks of `POST /endpoints` and the bulk import: validation, the default-scanner rule and
   * the duplicate check. One outcome per row, as the bulk import answers.
   */
  createRows(
    rows: Record<string, unknown>[],
    actor: ActorContext,
    action: 'endpoint:create' | 'endpoint:bulk_create',
  ): Promise<BulkRowOutcome[]> {
    return this.createMany(rows.map(readEndpointRow), actor, action);
  }

  private async createMany(inputs: BulkRow[], actor: ActorContext, action: string): Promise<BulkRowOutcome[]> {
    const requestedScanners = inputs.flatMap((input) => (typeof input !== 'string' && input.scannerId ? [input.scannerId] : []));
    const knownScanners = await this.endpoints.existingScannerIds([...new Set(requestedScanners)]);

    const results = await this.endpoints.withWriteLock(async (transaction) => {
      const defaultScannerId = await this.endpoints.defaultScannerId(transaction);
      const built = inputs.map((input, index) => buildRow(input, index, knownScanners, defaultScannerId));
      const candidates = built.filter((row): row is BuiltRow => 'record' in row);
      const taken = await this.endpoints.takenIdentities(
        candidates.map((row) => row.record),
        transaction,
      );
      const outcomes: (BulkRowOutcome | { index: number; pending: EndpointRecord & { id: string } })[] = built.map((row) => {
        if ('error' in row) return row.error;
        const identity = endpointIdentity(row.record);
        if (identity !== null && taken.has(identity)) {
          return { index: row.index, ok: false, status: 409, error: DUPLICATE_MESSAGE[row.record.type as 'host' | 'saml'] };
        }
        if (identity !== null) taken.add(identity); // a later row of the same request is a duplicate too
        return { index: row.index, pending: { ...row.record, id: randomUUID() } };
      });
      const pending = outcomes.flatMap((o) => ('pending' in o ? [o.pending] : []));
      const inserted = new Map((await this.endpoints.insertMany(pending, transaction)).map((row) => [row.id, row]));
      const ignoring = pending.filter((record) => record.ignoredFindings.length > 0);
      await this.findings.setIgnored(
        ignoring.map((record) => ({ endpointId: record.id, ignored: record.ignoredFindings })),
        transaction,
      );
      for (const record of ignoring) inserted.get(record.id)!.ignoredFindings = record.ignoredFindings;
      // A new host or saml endpoint is due work: its scanner's long-poll answers at commit.
      await this.endpoints.notifyScanWork(
        pending.filter((record) => isScannable(record)).map((record) => record.scannerId),
        transaction,
      );
      if (pending.length > 0) {
        const details =
          pending.length === 1
            ? { name: pending[0].name, type: pending[0].type }
            : { created: pending.length, failed: inputs.length - pending.length };
        await this.audit.record(
          actor,
          { action, targetType: 'endpoint', targetId: pending.length === 1 ? pending[0].id : null, details },
          transaction,
        );
      }
      return outcomes.map((o) =>
        'pending' in o ? { index: o.index, ok: true as const, status: 201 as const, endpoint: inserted.get(o.pending.id)! } : o,
      );
    });
    // Before the response: a client listing right after its import gets plans made for its rows.
    if (results.some((result) => result.ok)) await this.endpoints.keepStatisticsCurrent();
    return results;
  }

  /** PUT (mode replace) or PATCH (mode patch). */
  async updateEndpoint(
    id: string,
    input: EndpointInputDto,
    mode: Exclude<RecordMode, 'create'>,
    actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    const updated = await this.endpoints.withWriteLock(async (transaction) => {
      const existing = await this.endpoints.findById(id, transaction);
      if (!existing) throw new NotFoundException('Endpoint not found.');
      if (input.scannerId && !(await this.endpoints.existingScannerIds([input.scannerId])).has(input.scannerId)) {
        throw new BadRequestException('scannerId: no scanner has this id');
      }
      const built = buildEndpointRecord(input, mode, existing, await this.endpoints.defaultScannerId(transaction));
      if ('error' in built) throw new BadRequestException(built.error);
      const identity = endpointIdentity(built.record);
      if (identity !== null && (await this.endpoints.takenIdentities([built.record], transaction, id)).has(identity)) {
        throw new ConflictException(`${capitalise(DUPLICATE_MESSAGE[built.record.type as 'host' | 'saml'])}.`);
      }
      await this.endpoints.update(id, built.record, transaction);
      // Also recomputes its findings, which its dnsName decides in part (hostname_mismatch).
      await this.findings.setIgnored([{ endpointId: id, ignored: built.record.ignoredFindings }], transaction);
      // Enabled again or moved to another scanner, an endpoint never scanned is due at once.
      if (isScannable(built.record)) await this.endpoints.notifyScanWork([built.record.scannerId], transaction);
      await this.audit.record(actor, { action: 'endpoint:update', targetType: 'endpoint', targetId: id, details: { mode } }, transaction);
      return (await this.endpoints.findById(id, transaction))!;
    });
    return toEndpointResponse(updated, this.clock.now());
  }

  /**
   * Scan now: records the request (idempotent) and wakes the scanner's long-poll on whichever
   * replica holds it. Refused for what no scanner scans: manual, disabled and scan-exempt
   * endpoints (docs/decisions/0012-scan-now.md).
   *
   * @throws NotFoundException for an unknown id, ConflictException when the endpoint is not scanned.
   */
  async requestScan(id: string, actor: ActorContext): Promise<void> {
    await this.endpoints.withWriteLock(async (transaction) => {
      const existing = await this.endpoints.findById(id, transaction);
      if (!existing) throw new NotFoundException('Endpoint not found.');
      if (existing.type === 'manual') throw new ConflictException('A manual endpoint has nothing to scan.');
      if (!existing.enabled) throw new ConflictException('The endpoint is disabled: enable it to scan it.');
      if (existing.scanExempt) throw new ConflictException('The endpoint is scan-exempt: no scanner scans it.');
      await this.endpoints.requestScan(id, transaction);
      await this.endpoints.notifyScanWork([existing.scannerId], transaction);
      await this.audit.record(actor, { action: 'endpoint:scan_request', targetType: 'endpoint', targetId: id }, transaction);
    });
  }

  async deleteEndpoint(id: string, actor: ActorContext): Promise<void> {
    await this.endpoints.withWriteLock(async (transaction) => {
      const existing = await this.endpoints.findById(id, transaction);
      if (!existing) throw new NotFoundException('Endpoint not found.');
      await this.endpoints.delete(id, transaction);
      await this.audit.record(
        actor,
        { action: 'endpoint:delete', targetType: 'endpoint', targetId: id, details: { name: existing.name } },
        transaction,
      );
    });
  }

  async getTags(id: string): Promise<string[]> {
    return (await this.requireEndpoint(id)).tags;
  }

  /** Replaces the tag set with `tags`, repeats already kept once. */
  async replaceTags(id: string, tags: string[], actor: ActorContext): Promise<string[]> {
    await this.endpoints.withWriteLock(async (transaction: Transaction) => {
      if (!(await this.endpoints.findById(id, transaction))) throw new NotFoundException('Endpoint not found.');
      await this.endpoints.replaceTags(id, tags, transaction);
      await this.audit.record(actor, { action: 'endpoint:tags', targetType: 'endpoint', targetId: id, details: { tags } }, transaction);
    });
    return tags;
  }

  listTagCounts(): Promise<{ tag: string; endpointCount: number }[]> {
    return this.endpoints.listTagCounts();
  }

  async history(id: string, window: { limit: number; offset: number }): Promise<{ rows: ScanHistoryEntity[]; total: number }> {
    await this.requireEndpoint(id);
    return this.endpoints.findHistory(id, window);
  }

  /** The whole scan history as CSV; 404 for an unknown endpoint as the JSON list. */
  exportHistory(id: string): CsvExport<ScanHistoryEntity> {
    return {
      list: 'endpoint-history',
      item: ScanHistoryRowDto,
      open: async () => {
        await this.requireEndpoint(id);
        return this.endpoints.streamHistory(id);
      },
      toItem: toScanHistoryRow,
      now: this.clock.now(),
    };
  }

  /** 404 for saml and manual endpoints and for a host never profiled. */
  async tlsProfile(id: string): Promise<TlsProfileEntity> {
    const endpoint = await this.requireEndpoint(id);
    if (endpoint.type !== 'host') throw new NotFoundException(`A ${endpoint.type} endpoint has no TLS profile.`);
    const profile = await this.endpoints.findTlsProfile(id);
    if (!profile) throw new NotFoundException('This endpoint has not been profiled yet.');
    return profile;
  }
}

type BuiltRow = { index: number; record: EndpointRecord };

function buildRow(
  input: BulkRow,
  index: number,
  knownScanners: Set<string>,
  defaultScannerId: string | null,
): BuiltRow | { error: BulkRowOutcome } {
  const refuse = (error: string) => ({ error: { index, ok: false as const, status: 400 as const, error } });
  if (typeof input === 'string') return refuse(input);
  if (input.scannerId && !knownScanners.has(input.scannerId)) return refuse('scannerId: no scanner has this id');
  const built = buildEndpointRecord(input, 'create', null, defaultScannerId);
  return 'error' in built ? refuse(built.error) : { index, record: built.record };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
