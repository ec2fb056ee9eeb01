import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { discoveryHostnames, normaliseAddress } from '@certkeeper/domain/discovery';
import type { SweepFinding } from '@certkeeper/domain/protocol';
import { type ParsedCertificate, parseFirstCertificate } from '@certkeeper/domain/x509';
import { Clock } from '../../common/clock';
import type { CsvExport } from '../../common/http/csv/csv-export';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { CertificatesService } from '../certificates/certificates.service';
import type { EndpointRow } from '../endpoints/endpoints.repository';
import type { EndpointResponseDto } from '../endpoints/endpoints.dto';
import { toEndpointResponse } from '../endpoints/endpoints.mapper';
import { EndpointsService } from '../endpoints/endpoints.service';
import { type InboxBulkResultDto, InboxEntryResponseDto, type PromoteInboxEntryDto } from './inbox.dto';
import { toInboxBulkResult, toInboxEntryResponse } from './inbox.mapper';
import { type FoundService, type InboxCriteria, type InboxFilter, InboxRepository, type InboxView, serviceKey } from './inbox.repository';

/** One id of an inbox action, answered as the action would have answered it alone. */
export type InboxActionOutcome =
  | { index: number; id: string; ok: true; status: 201; endpoint: EndpointRow }
  | { index: number; id: string; ok: true; status: 200; entry: InboxView }
  | { index: number; id: string; ok: false; status: 400 | 404 | 409; error: string };

type Refusal = { status: 404 | 409; error: string };

/**
 * The discovery inbox (docs/api-contract.md section 8): what sweeps found, one row per (network,
 * address, port), and what people decide about it. Promoting creates the host endpoint through
 * EndpointsService, the code path of `POST /endpoints`, with its validation, default-scanner rule
 * and duplicate check.
 */
@Injectable()
export class InboxService {
  constructor(
    private readonly inbox: InboxRepository,
    private readonly certificates: CertificatesService,
    private readonly endpoints: EndpointsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** The window of entries the list filters match, as response items, and the number of all matches. */
  async listEntries(filter: InboxFilter): Promise<{ items: InboxEntryResponseDto[]; total: number }> {
    const now = this.clock.now();
    const { rows, total } = await this.inbox.findPage(filter);
    return { items: rows.map((row) => toInboxEntryResponse(row, now)), total };
  }

  /** Every entry the list filters match, as the CSV form of the same items. */
  exportEntries(criteria: InboxCriteria): CsvExport<InboxView> {
    const now = this.clock.now();
    return {
      list: 'discovery-inbox',
      item: InboxEntryResponseDto,
      open: () => this.inbox.streamMatching(criteria),
      toItem: (row) => toInboxEntryResponse(row, now),
      now,
    };
  }

  /**
   * Records the services of one sweep report: certificates into the global store (re-parsed
   * here: nothing the agent computed is trusted), names derived from the parsed leaf, one inbox
   * row per service. Returns how many services the report held.
   */
  async recordFindings(
    sweep: { id: string; networkId: string },
    findings: SweepFinding[],
    at: Date,
    transaction: Transaction,
  ): Promise<number> {
    const byService = new Map<string, FoundService>();
    const certificates = new Map<string, ParsedCertificate>();
    for (const finding of findings) {
      const chain = parseChain(finding.chain);
      for (const certificate of chain ?? []) certificates.set(certificate.fingerprintSha256, certificate);
      const leaf = chain?.[0] ?? null;
      const address = normaliseAddress(finding.address) ?? finding.address;
      byService.set(serviceKey({ address, port: finding.port }), {
        address,
        port: finding.port,
        reverseName: finding.reverseName,
        hostnames: discoveryHostnames(finding.reverseName, leaf?.sans ?? []),
        fingerprint: leaf?.fingerprintSha256 ?? null,
      });
    }
    if (certificates.size > 0) await this.certificates.storeParsed([...certificates.values()], transaction);
    const services = [...byService.values()];
    const reached = await this.inbox.endpointsThatReached(services, transaction);
    await this.inbox.upsertFound(
      sweep,
      services.map((service) => ({ ...service, trackedEndpointId: reached.get(serviceKey(service)) ?? null })),
      at,
      transaction,
    );
    return services.length;
  }

  /** 201 with the endpoint; 404 unknown entry; 409 promoted already or tracked by an endpoint; 400/409 as `POST /endpoints`. */
  async promote(id: string, overrides: PromoteInboxEntryDto, actor: ActorContext): Promise<EndpointResponseDto> {
    const [outcome] = await this.promoteMany([{ id, overrides }], actor, 'endpoint:create');
    if (outcome.ok) return toEndpointResponse((outcome as { endpoint: EndpointRow }).endpoint, this.clock.now());
    throw refusalException(outcome);
  }

  async dismiss(id: string, actor: ActorContext): Promise<InboxEntryResponseDto> {
    const [outcome] = await this.dismissMany([id], actor);
    if (outcome.ok) return toInboxEntryResponse((outcome as { entry: InboxView }).entry, this.clock.now());
    throw refusalException(outcome);
  }

  async bulk(action: 'promote' | 'dismiss', ids: string[], actor: ActorContext): Promise<InboxBulkResultDto> {
    const outcomes =
      action === 'promote'
        ? await this.promoteMany(
            ids.map((id) => ({ id, overrides: {} })),
            actor,
            'endpoint:bulk_create',
          )
        : await this.dismissMany(ids, actor);
    return toInboxBulkResult(outcomes, this.clock.now());
  }

  private async promoteMany(
    requests: { id: string; overrides: PromoteInboxEntryDto }[],
    actor: ActorContext,
    action: 'endpoint:create' | 'endpoint:bulk_create',
  ): Promise<InboxActionOutcome[]> {
    const views = await this.inbox.findViews(requests.map((request) => request.id));
    const outcomes: InboxActionOutcome[] = new Array<InboxActionOutcome>(requests.length);
    const eligible: { index: number; id: string; row: Record<string, unknown> }[] = [];
    requests.forEach((request, index) => {
      const view = views.get(request.id);
      const refusal = promoteRefusal(view);
      if (refusal) outcomes[index] = { index, id: request.id, ok: false, ...refusal };
      else eligible.push({ index, id: request.id, row: endpointRecordFor(view!, request.overrides) });
    });
    const created = await this.endpoints.createRows(
      eligible.map((item) => item.row),
      actor,
      action,
    );
    for (const [position, item] of eligible.entries()) {
      const result = created[position];
      if (!result.ok) {
        outcomes[item.index] = { index: item.index, id: item.id, ok: false, status: result.status, error: result.error };
        continue;
      }
      await this.inbox.markPromoted(item.id, result.endpoint.id);
      outcomes[item.index] = { index: item.index, id: item.id, ok: true, status: 201, endpoint: result.endpoint };
    }
    return outcomes;
  }

  private async dismissMany(ids: string[], actor: ActorContext): Promise<InboxActionOutcome[]> {
    const views = await this.inbox.findViews(ids);
    const refusals = ids.map((id) => dismissRefusal(views.get(id)));
    const dismissed = [...new Set(ids.filter((_, index) => refusals[index] === null))];
    await this.inbox.markDismissed(dismissed);
    if (dismissed.length > 0) {
      await this.audit.record(actor, {
        action: 'discovery:dismiss',
        targetType: 'inbox_entry',
        targetId: dismissed.length === 1 ? dismissed[0] : null,
        details: { dismissed: dismissed.length },
      });
    }
    const after = await this.inbox.findViews(dismissed);
    return ids.map((id, index) => {
      const refusal = refusals[index];
      return refusal ? { index, id, ok: false, ...refusal } : { index, id, ok: true, status: 200, entry: after.get(id)! };
    });
  }
}

function promoteRefusal(view: InboxView | undefined): Refusal | null {
  if (!view) return { status: 404, error: 'no inbox entry has this id' };
  if (view.status === 'promoted') return { status: 409, error: `this entry was already promoted to endpoint ${view.endpointId}` };
  if (view.status === 'tracked') return { status: 409, error: `endpoint ${view.endpointId} already tracks this service` };
  return null;
}

function dismissRefusal(view: InboxView | undefined): Refusal | null {
  if (!view) return { status: 404, error: 'no inbox entry has this id' };
  if (view.status === 'promoted')
    return { status: 409, error: `this entry was promoted to endpoint ${view.endpointId}: delete that endpoint instead` };
  return null;
}

/**
 * The host endpoint a promote creates (docs/api-contract.md section 8): connect to the address it
 * was found at, under the first host name that can be one (wildcard SANs cannot), else the address.
 */
function endpointRecordFor(view: InboxView, overrides: PromoteInboxEntryDto): Record<string, unknown> {
  const dnsName = overrides.dnsName ?? view.hostnames.find((name) => !name.includes('*')) ?? view.address;
  return {
    type: 'host',
    name: overrides.name ?? (view.port === 443 ? dnsName : `${dnsName}:${view.port}`),
    dnsName,
    ipAddress: view.address,
    port: view.port,
    ...(overrides.tags === undefined ? {} : { tags: overrides.tags }),
    ...(overrides.scannerId === undefined ? {} : { scannerId: overrides.scannerId }),
  };
}

function refusalException(outcome: { status: number; error: string }): Error {
  const message = `${outcome.error.charAt(0).toUpperCase()}${outcome.error.slice(1)}.`;
  if (outcome.status === 404) return new NotFoundException(message);
  if (outcome.status === 409) return new ConflictException(message);
  return new BadRequestException(outcome.error);
}

/** The presented chain, each PEM parsed here; null when any block is not a certificate. */
function parseChain(pems: string[]): ParsedCertificate[] | null {
  const chain: ParsedCertificate[] = [];
  for (const pem of pems) {
    const parsed = parseFirstCertificate(pem);
    if ('error' in parsed) return null;
    chain.push(parsed.certificate);
  }
  return chain;
}
