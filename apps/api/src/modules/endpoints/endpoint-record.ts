import { uniqueTags } from '@certkeeper/domain';
import type { EndpointInputDto } from './endpoints.dto';
import type { EndpointRecord } from './endpoints.repository';
import type { EndpointType } from './endpoint.entity';

export const DEFAULT_HOST_PORT = 443;

export type RecordMode = 'create' | 'replace' | 'patch';

/**
 * Builds the stored record of an endpoint from a request, or says in one sentence why not.
 * create and replace (PUT) start from the defaults; patch starts from the existing record and
 * changes only what the request names. Fields that do not apply to the type are stored as null,
 * and a manual endpoint has no scanner. `scannerId: null` means "the default scanner", whose id
 * is stored (docs/api-contract.md section 4).
 */
export function buildEndpointRecord(
  input: EndpointInputDto,
  mode: RecordMode,
  existing: EndpointRecord | null,
  defaultScannerId: string | null,
): { record: EndpointRecord } | { error: string } {
  const type: EndpointType = existing?.type ?? input.type ?? 'host';
  if (existing && input.type !== undefined && input.type !== existing.type) {
    return { error: `type cannot change (this endpoint is ${existing.type})` };
  }
  const base: EndpointRecord =
    mode === 'patch' && existing
      ? existing
      : {
          name: '',
          type,
          enabled: true,
          scanExempt: false,
          scannerId: null,
          notes: '',
          tags: [],
          dnsName: null,
          port: null,
          ipAddress: null,
          starttls: null,
          metadataUrl: null,
          ignoredFindings: [],
        };
  const merged: EndpointRecord = {
    ...base,
    type,
    name: input.name ?? base.name,
    enabled: input.enabled ?? base.enabled,
    scanExempt: input.scanExempt ?? base.scanExempt,
    notes: input.notes ?? base.notes,
    tags: input.tags !== undefined ? uniqueTags(input.tags) : base.tags,
    dnsName: input.dnsName !== undefined ? normaliseDnsName(input.dnsName) : base.dnsName,
    port: input.port ?? base.port,
    ipAddress: input.ipAddress !== undefined ? (input.ipAddress?.toLowerCase() ?? null) : base.ipAddress,
    starttls: input.starttls !== undefined ? input.starttls : base.starttls,
    metadataUrl: input.metadataUrl ?? base.metadataUrl,
    ignoredFindings: input.ignoredFindings !== undefined ? [...new Set(input.ignoredFindings)] : base.ignoredFindings,
    scannerId: input.scannerId !== undefined ? input.scannerId : mode === 'patch' ? base.scannerId : null,
  };
  if (!merged.name) return { error: 'name is required' };
  // A PATCH that does not mention the scanner keeps whatever it had, even null after a deletion.
  const keepsScanner = mode === 'patch' && input.scannerId === undefined;
  const scannerId = keepsScanner ? merged.scannerId : (merged.scannerId ?? defaultScannerId);
  switch (type) {
    case 'host':
      if (!merged.dnsName) return { error: 'dnsName is required for host endpoints' };
      return { record: { ...merged, port: merged.port ?? DEFAULT_HOST_PORT, metadataUrl: null, scannerId } };
    case 'saml':
      if (!merged.metadataUrl) return { error: 'metadataUrl is required for saml endpoints' };
      return { record: { ...merged, dnsName: null, port: null, ipAddress: null, starttls: null, scannerId } };
    case 'manual':
      return {
        record: { ...merged, dnsName: null, port: null, ipAddress: null, starttls: null, metadataUrl: null, scannerId: null },
      };
  }
}

/** DNS is case-insensitive and a trailing dot names the same host. */
export function normaliseDnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
