import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ActiveLinkRow } from '../certificates/certificates.repository';
import type { EndpointType } from '../endpoints/endpoint.entity';
import { inSubscriptionScope } from '../expiry/subscription-scope';
import { supersededByColumns, storedSupersededByJoin } from '../renewals/superseded-by';

export interface EndpointCounts {
  endpoints: number;
  host: number;
  saml: number;
  manual: number;
  withErrors: number;
  stale: number;
}

export interface LinkCounts {
  active: number;
  expired: number;
  /** One count per horizon given, in the same order. */
  expiringBefore: number[];
}

export interface ErrorEndpointRow {
  id: string;
  name: string;
  type: EndpointType;
  errorSince: Date;
  lastScanError: string | null;
}

export interface StaleScanRow {
  id: string;
  name: string;
  type: EndpointType;
  lastScannedAt: Date | null;
  scannerId: string | null;
}

/**
 * Stale: an endpoint the scanners are meant to scan (enabled, not scan-exempt, host or saml, the
 * same set as IngestRepository.findWork) whose last scan, or its creation when never scanned, is
 * older than `$n`. One definition for the count and the panel. The expression matches
 * endpoints_stale_scan_idx, so the panel reads that index in order and the count reads it alone.
 */
const SCANNED_OR_CREATED = 'coalesce(e.last_scanned_at, e.created_at)';
const isStale = (before: string) =>
  `(e.enabled AND NOT e.scan_exempt AND e.type IN ('host', 'saml') AND ${SCANNED_OR_CREATED} < ${before})`;

/**
 * Named counts over one table, as one row. Without a scope (an empty subscription list is
 * everything) each count is a subquery of its own, which PostgreSQL answers from the index
 * matching its condition (endpoints_type_idx, endpoints_error_since_idx, endpoints_stale_scan_idx,
 * endpoint_certificates_current_not_after_idx) without reading the table; testing every row of
 * 100,000 for each count costs more. With a scope the rows in scope must be read anyway (tags are
 * in none of those indexes), so one pass over them tests every condition.
 */
function countsQuery(from: string, where: string, counts: Record<string, string>, scope: string | null): string {
  const entries = Object.entries(counts);
  return scope === null
    ? `SELECT ${entries.map(([name, condition]) => `(SELECT count(*)::int ${from} WHERE ${where} AND ${condition}) AS "${name}"`).join(', ')}`
    : `SELECT ${entries.map(([name, condition]) => `count(*) FILTER (WHERE ${condition})::int AS "${name}"`).join(', ')}
         ${from} WHERE ${where} AND ${scope}`;
}

/**
 * The dashboard's reads (docs/api-contract.md section 11). Every query takes the caller's
 * subscriptions (empty: everything) and scopes endpoints with the rule alerts and calendar feeds
 * use (inSubscriptionScope).
 */
@Injectable()
export class DashboardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Endpoints in scope by type, with a scan error, and stale (scanned or created before `staleBefore`). */
  async countEndpoints(subscriptions: readonly string[], staleBefore: Date): Promise<EndpointCounts> {
    const params: unknown[] = [staleBefore];
    const scope = subscriptions.length === 0 ? null : inSubscriptionScope('e', `$${params.push(subscriptions)}`);
    const counts = {
      host: `e.type = 'host'`,
      saml: `e.type = 'saml'`,
      manual: `e.type = 'manual'`,
      withErrors: 'e.error_since IS NOT NULL',
      stale: isStale('$1'),
    };
    const rows = await this.dataSource.query<Omit<EndpointCounts, 'endpoints'>[]>(
      countsQuery('FROM endpoints e', 'true', counts, scope),
      params,
    );
    const row = rows[0];
    // Every endpoint has exactly one of the three types (endpoints_type_check).
    return { ...row, endpoints: row.host + row.saml + row.manual };
  }

  /**
   * Current links in scope (the rows of GET /certificates/active): all of them, the expired ones
   * (notAfter <= now), and per horizon those not expired whose notAfter is before it.
   */
  async countCurrentLinks(subscriptions: readonly string[], now: Date, horizons: readonly Date[]): Promise<LinkCounts> {
    const params: unknown[] = [now, ...horizons];
    // Scoped, the links of the endpoints in scope are looked up by endpoint id, read from
    // endpoint_certificates_current_endpoint_idx alone: the planner joins by reading every current
    // link, twice as slow for a tenth of 100,000 endpoints. (For a subscription covering nearly
    // every endpoint the lookup is somewhat slower than that join; scope=all skips both.)
    const scope =
      subscriptions.length === 0
        ? null
        : `l.endpoint_id = ANY(ARRAY(SELECT e.id FROM endpoints e WHERE ${inSubscriptionScope('e', `$${params.push(subscriptions)}`)}))`;
    const counts: Record<string, string> = { active: 'true', expired: 'l.not_after <= $1' };
    horizons.forEach((_, i) => (counts[`within${i}`] = `l.not_after > $1 AND l.not_after < $${i + 2}`));
    const rows = await this.dataSource.query<Record<string, number>[]>(
      countsQuery('FROM endpoint_certificates l', 'l.is_current', counts, scope),
      params,
    );
    const row = rows[0];
    return { active: row.active, expired: row.expired, expiringBefore: horizons.map((_, i) => row[`within${i}`]) };
  }

  /** Endpoints in scope with a scan error, oldest error first. */
  findErrorEndpoints(subscriptions: readonly string[], limit: number): Promise<ErrorEndpointRow[]> {
    return this.dataSource.query<ErrorEndpointRow[]>(
      `SELECT e.id, e.name, e.type, e.error_since AS "errorSince", e.last_scan_error AS "lastScanError"
         FROM endpoints e
        WHERE e.error_since IS NOT NULL AND ${inSubscriptionScope('e', '$1')}
        ORDER BY e.error_since, e.id
        LIMIT $2`,
      [subscriptions, limit],
    );
  }

  /** Current links in scope expiring before `before` (expired ones included), soonest notAfter first: active rows. */
  findExpiringLinks(subscriptions: readonly string[], before: Date, limit: number): Promise<ActiveLinkRow[]> {
    return this.dataSource.query<ActiveLinkRow[]>(
      `SELECT l.endpoint_id AS "endpointId", e.name AS "endpointName", e.type AS "endpointType", e.tags AS "endpointTags",
              l.cert_use AS "certUse",
              c.fingerprint, c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName",
              c.not_before AS "notBefore", c.not_after AS "notAfter", l.first_seen_at AS "firstSeenAt", l.last_seen_at AS "lastSeenAt",
              ${supersededByColumns()}
         FROM endpoint_certificates l
         JOIN endpoints e ON e.id = l.endpoint_id
         JOIN certificates c ON c.fingerprint = l.fingerprint
         ${storedSupersededByJoin('l')}
        WHERE l.is_current AND l.not_after < $2 AND ${inSubscriptionScope('e', '$1')}
        ORDER BY l.not_after, l.id
        LIMIT $3`,
      [subscriptions, before, limit],
    );
  }

  /**
   * Endpoints in scope serving a certificate whose renewal is stored but not deployed
   * (docs/api-contract.md section 16): the links that keep such a renewal, read from their partial
   * index alone; scoped, only those of the endpoints in scope (as countCurrentLinks).
   */
  async countRenewalNotDeployed(subscriptions: readonly string[]): Promise<number> {
    const scope =
      subscriptions.length === 0
        ? ''
        : `AND l.endpoint_id = ANY(ARRAY(SELECT e.id FROM endpoints e WHERE ${inSubscriptionScope('e', '$1')}))`;
    const rows = await this.dataSource.query<{ total: number }[]>(
      `SELECT count(DISTINCT l.endpoint_id)::int AS total FROM endpoint_certificates l WHERE l.superseded_by IS NOT NULL ${scope}`,
      subscriptions.length === 0 ? [] : [subscriptions],
    );
    return rows[0].total;
  }

  /** Stale endpoints in scope, stalest first (oldest last scan, or creation when never scanned). */
  findStaleScans(subscriptions: readonly string[], staleBefore: Date, limit: number): Promise<StaleScanRow[]> {
    return this.dataSource.query<StaleScanRow[]>(
      `SELECT e.id, e.name, e.type, e.last_scanned_at AS "lastScannedAt", e.scanner_id AS "scannerId"
         FROM endpoints e
        WHERE ${isStale('$2')} AND ${inSubscriptionScope('e', '$1')}
        ORDER BY ${SCANNED_OR_CREATED}, e.id
        LIMIT $3`,
      [subscriptions, staleBefore, limit],
    );
  }
}
