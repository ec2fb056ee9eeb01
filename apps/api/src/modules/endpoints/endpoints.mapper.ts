import { daysRemaining, describeFindings } from '@certkeeper/domain';
import { isoTimestamp } from '../../common/http/iso-timestamp';
import type { CurrentCertificateRow } from '../links/links.repository';
import { type SupersededBy, supersededByOf } from '../renewals/superseded-by';
import type {
  BulkResultDto,
  CurrentCertificateDto,
  EndpointListItemDto,
  EndpointResponseDto,
  ScanHistoryRowDto,
  SupersededByDto,
  TagSummaryDto,
  TlsProfileResponseDto,
} from './endpoints.dto';
import type { EndpointListRow, EndpointRow } from './endpoints.repository';
import type { BulkRowOutcome } from './endpoints.service';
import type { ScanHistoryEntity } from './scan-history.entity';
import type { TlsProfileEntity } from './tls-profile.entity';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** `now` gives daysRemaining of the soonest-expiring current certificate. */
export function toEndpointResponse(row: EndpointRow, now: Date): EndpointResponseDto {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    enabled: row.enabled,
    scanExempt: row.scanExempt,
    scannerId: row.scannerId,
    notes: row.notes,
    tags: row.tags,
    dnsName: row.dnsName,
    port: row.port,
    ipAddress: row.ipAddress,
    starttls: row.type === 'host' ? row.starttls : null,
    metadataUrl: row.metadataUrl,
    errorSince: iso(row.errorSince),
    lastScannedAt: iso(row.lastScannedAt),
    lastScanError: row.lastScanError,
    soonestNotAfter: iso(row.soonestNotAfter),
    daysRemaining: row.soonestNotAfter ? daysRemaining(row.soonestNotAfter, now) : null,
    chainComplete: row.type === 'host' ? row.chainComplete : null,
    resolvedIp: row.type === 'host' ? row.resolvedIp : null,
    samlMetadata: row.type === 'saml' ? row.samlMetadata : null,
    findings: describeFindings(row.findings),
    ignoredFindings: row.ignoredFindings,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toEndpointListItem(row: EndpointListRow, now: Date): EndpointListItemDto {
  return { ...toEndpointResponse(row, now), renewalNotDeployed: row.renewalNotDeployed };
}

export function toCurrentCertificate(row: CurrentCertificateRow, now: Date): CurrentCertificateDto {
  return {
    certUse: row.certUse,
    fingerprint: row.fingerprint,
    commonName: row.commonName,
    sans: row.sans,
    issuerCommonName: row.issuerCommonName,
    notBefore: isoTimestamp(row.notBefore),
    notAfter: isoTimestamp(row.notAfter),
    daysRemaining: daysRemaining(row.notAfter, now),
    firstSeenAt: isoTimestamp(row.firstSeenAt),
    lastSeenAt: isoTimestamp(row.lastSeenAt),
    supersededBy: toSupersededBy(supersededByOf(row)),
  };
}

function toSupersededBy(renewal: SupersededBy | null): SupersededByDto | null {
  if (renewal === null) return null;
  return { fingerprint: renewal.fingerprint, notBefore: isoTimestamp(renewal.notBefore), firstSeenAt: isoTimestamp(renewal.firstSeenAt) };
}

export function toBulkResult(outcomes: BulkRowOutcome[], now: Date): BulkResultDto {
  const results = outcomes.map((outcome) =>
    outcome.ok
      ? { index: outcome.index, ok: true, status: outcome.status, endpoint: toEndpointResponse(outcome.endpoint, now) }
      : { index: outcome.index, ok: false, status: outcome.status, error: outcome.error },
  );
  const created = outcomes.filter((o) => o.ok).length;
  return { results, created, failed: outcomes.length - created };
}

export function toScanHistoryRow(row: ScanHistoryEntity): ScanHistoryRowDto {
  return {
    id: row.id,
    scannedAt: row.scannedAt.toISOString(),
    success: row.success,
    error: row.error,
    resolvedIp: row.resolvedIp,
    fingerprint: row.fingerprint,
    tlsVersion: row.tlsVersion,
    scannerId: row.scannerId,
  };
}

export function toTlsProfile(profile: TlsProfileEntity): TlsProfileResponseDto {
  return {
    scannedAt: profile.scannedAt.toISOString(),
    versions: profile.versions,
    negotiatedVersion: profile.negotiatedVersion,
    negotiatedCipherSuite: profile.negotiatedCipherSuite,
  };
}

/** `category:value` splits at the first colon; a bare value has no category. */
export function toTagSummary(row: { tag: string; endpointCount: number }): TagSummaryDto {
  const colon = row.tag.indexOf(':');
  return colon > 0
    ? { tag: row.tag, category: row.tag.slice(0, colon), value: row.tag.slice(colon + 1), endpointCount: row.endpointCount }
    : { tag: row.tag, category: null, value: row.tag, endpointCount: row.endpointCount };
}
