import { daysRemaining } from '@certkeeper/domain';
import { toEndpointResponse } from '../endpoints/endpoints.mapper';
import type { InboxBulkItemDto, InboxBulkResultDto, InboxEntryResponseDto } from './inbox.dto';
import type { InboxView } from './inbox.repository';
import type { InboxActionOutcome } from './inbox.service';

export function toInboxEntryResponse(view: InboxView, now: Date): InboxEntryResponseDto {
  return {
    id: view.id,
    networkId: view.networkId,
    address: view.address,
    port: view.port,
    hostnames: view.hostnames,
    fingerprint: view.fingerprint,
    commonName: view.commonName,
    sans: view.sans ?? [],
    issuerCommonName: view.issuerCommonName,
    notAfter: view.notAfter?.toISOString() ?? null,
    daysRemaining: view.notAfter ? daysRemaining(view.notAfter, now) : null,
    status: view.status,
    endpointId: view.endpointId,
    firstSeenAt: view.firstSeenAt.toISOString(),
    lastSeenAt: view.lastSeenAt.toISOString(),
  };
}

/** One result per id, in order, with the counts of those that succeeded and failed. */
export function toInboxBulkResult(outcomes: InboxActionOutcome[], now: Date): InboxBulkResultDto {
  const results = outcomes.map((outcome) => toBulkItem(outcome, now));
  const succeeded = results.filter((result) => result.ok).length;
  return { results, succeeded, failed: results.length - succeeded };
}

function toBulkItem(outcome: InboxActionOutcome, now: Date): InboxBulkItemDto {
  const base = { index: outcome.index, id: outcome.id, ok: outcome.ok, status: outcome.status };
  if (!outcome.ok) return { ...base, error: outcome.error };
  return 'endpoint' in outcome
    ? { ...base, endpoint: toEndpointResponse(outcome.endpoint, now) }
    : { ...base, entry: toInboxEntryResponse(outcome.entry, now) };
}
