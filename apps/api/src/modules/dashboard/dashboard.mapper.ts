import { toActiveCertificate } from '../certificates/certificates.mapper';
import type { ActiveLinkRow } from '../certificates/certificates.repository';
import { describeFindings, isScannerOnline } from '@certkeeper/domain';
import type { AlertRun } from '../alerts/alerts.repository';
import type { FailingChannel } from '../channels/channels.repository';
import type { ScannerEntity } from '../scanners/scanner.entity';
import type { AlertingDto, DashboardResponseDto, ErrorEndpointDto, StaleScanDto } from './dashboard.dto';
import type { FindingEndpointRow } from '../findings/findings.repository';
import type { EndpointCounts, ErrorEndpointRow, LinkCounts, StaleScanRow } from './dashboard.repository';

export interface DashboardData {
  /** The alert thresholds, in the order expiringWithin lists them. */
  thresholds: number[];
  endpoints: EndpointCounts;
  links: LinkCounts;
  /** Endpoints in scope serving a certificate whose renewal is not deployed. */
  renewalNotDeployed: number;
  errorEndpoints: ErrorEndpointRow[];
  expiring: ActiveLinkRow[];
  staleScans: StaleScanRow[];
  findings: { counts: Record<string, number>; endpoints: FindingEndpointRow[] };
  alerting: AlertingState;
  renewalOverdue: number;
}

/** What the alerting block is made of: the same for every caller. */
export interface AlertingState {
  mailEnabled: boolean;
  lastRun: AlertRun | null;
  scanners: ScannerEntity[];
  failingChannels: FailingChannel[];
}

export function toAlerting(state: AlertingState, now: Date): AlertingDto {
  const run = state.lastRun;
  return {
    mailEnabled: state.mailEnabled,
    lastRunAt: run?.ranAt.toISOString() ?? null,
    lastRun: run ? { alertsSent: run.alertsSent, alreadySent: run.alreadySent, failed: run.failed } : null,
    // Every failed delivery is retried at the next run, so those waiting are the latest run's failures.
    pendingFailures: run?.failed ?? 0,
    offlineScanners: state.scanners
      .filter((scanner) => !isScannerOnline(scanner.lastUsedAt, scanner.scanCronExpression, now))
      .map((scanner) => ({ id: scanner.id, name: scanner.name, lastUsedAt: scanner.lastUsedAt?.toISOString() ?? null })),
    failingChannels: state.failingChannels.map(({ id, name, kind, lastError }) => ({ id, name, kind, lastError })),
  };
}

export function toErrorEndpoint(row: ErrorEndpointRow): ErrorEndpointDto {
  return { id: row.id, name: row.name, type: row.type, errorSince: row.errorSince.toISOString(), lastScanError: row.lastScanError };
}

export function toStaleScan(row: StaleScanRow): StaleScanDto {
  return { id: row.id, name: row.name, type: row.type, lastScannedAt: row.lastScannedAt?.toISOString() ?? null, scannerId: row.scannerId };
}

export function toDashboard(data: DashboardData, now: Date): DashboardResponseDto {
  return {
    counts: {
      endpoints: data.endpoints.endpoints,
      byType: { host: data.endpoints.host, saml: data.endpoints.saml, manual: data.endpoints.manual },
      withErrors: data.endpoints.withErrors,
      stale: data.endpoints.stale,
      activeCertificates: data.links.active,
      expired: data.links.expired,
      expiringWithin: data.thresholds.map((days, i) => ({ days, count: data.links.expiringBefore[i] })),
      renewalOverdue: data.renewalOverdue,
      renewalNotDeployed: data.renewalNotDeployed,
      findings: data.findings.counts,
    },
    errorEndpoints: data.errorEndpoints.map(toErrorEndpoint),
    expiringCertificates: data.expiring.map((row) => toActiveCertificate(row, now)),
    staleScans: data.staleScans.map(toStaleScan),
    findingEndpoints: data.findings.endpoints.map((row) => ({
      id: row.id,
      name: row.name,
      type: row.type,
      findings: describeFindings(row.codes),
    })),
    alerting: toAlerting(data.alerting, now),
  };
}
