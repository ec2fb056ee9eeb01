import { daysRemaining } from '@certkeeper/domain';
import type { InboxEntryResponseDto } from './inbox.dto';
import type { InboxView } from './inbox.repository';

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
