import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ExpiringEndpoint } from '../expiry/expiry.repository';
import { inSubscriptionScope } from '../expiry/subscription-scope';
import type { Transaction } from '../../database/transaction';
import { recordPairsSql, refreshSupersededSql, supersededByJoin, type SupersedingWindow } from './superseded-by';

/** Which current links `refreshSuperseded` brings up to date. */
export type SupersededScope = { endpointIds: string[] } | { certificates: string[] } | { renewedBy: string[] } | 'all';

/** A transaction, or the data source for a statement of its own. */
type Executor = Pick<Transaction, 'query'>;

/** A current certificate in a recipient's scope, with the endpoints in scope it is current on. */
interface CurrentInScope {
  fingerprint: string;
  commonName: string | null;
  notAfter: Date;
  endpoints: ExpiringEndpoint[];
}

export interface RegressedCertificate extends CurrentInScope {
  regressedRotation: { fromFingerprint: string; regressions: string[] };
}

export interface SupersededCertificate extends CurrentInScope {
  supersededBy: { fingerprint: string; notBefore: Date };
}

/** Endpoints in scope a certificate is current on, for any query aliasing certificates `c` ($1: the scope's tags). */
const ENDPOINTS_IN_SCOPE = `(SELECT json_agg(DISTINCT jsonb_build_object('id', e2.id, 'name', e2.name, 'type', e2.type))
      FROM endpoint_certificates l2 JOIN endpoints e2 ON e2.id = l2.endpoint_id
     WHERE l2.fingerprint = c.fingerprint AND l2.is_current AND ${inSubscriptionScope('e2', '$1')}) AS endpoints`;

/** The facts of the renewal events (docs/api-contract.md section 16), per recipient scope (tags; empty is everything). */
@Injectable()
export class RenewalsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Records the pairs of certificate and renewal that newly stored certificates take part in, in
   * the storing transaction, and what the current links of the certificates they renew keep.
   */
  async recordPairs(fingerprints: string[], superseding: SupersedingWindow, transaction: Transaction): Promise<void> {
    if (fingerprints.length === 0) return;
    await transaction.query(recordPairsSql('$1'), [fingerprints]);
    await this.refreshSuperseded({ renewedBy: fingerprints }, superseding, transaction);
  }

  /** The certificates these renew: whose links a deletion of them changes. */
  async findRenewed(renewals: string[], transaction: Transaction): Promise<string[]> {
    const rows = await transaction.query<{ certificate: string }[]>(
      'SELECT DISTINCT certificate FROM certificate_renewals WHERE renewal = ANY($1::text[])',
      [renewals],
    );
    return rows.map((row) => row.certificate);
  }

  /**
   * Brings the renewal each current link in `scope` keeps (`superseded_by`) to the rule's answer
   * at the window; answers how many links changed. Scopes: the links of some endpoints (a
   * sighting), of some certificates, of the certificates some renew (a renewal stored), or all
   * (the hourly pass, for the clock).
   */
  async refreshSuperseded(scope: SupersededScope, superseding: SupersedingWindow, executor: Executor = this.dataSource): Promise<number> {
    const { where, values } = linksIn(scope);
    // An UPDATE answers [rows, count].
    const [, changed] = await executor.query<[unknown[], number]>(refreshSupersededSql(where, '$1', '$2'), [
      superseding.now,
      superseding.afterHours,
      ...values,
    ]);
    return changed;
  }

  /** Current certificates in scope that a regressing rotation brought in, each with its latest such rotation. */
  async findRegressedCurrent(scope: readonly string[]): Promise<RegressedCertificate[]> {
    const rows = await this.dataSource.query<(CurrentInScope & { fromFingerprint: string; regressions: string[] })[]>(
      `SELECT c.fingerprint, c.common_name AS "commonName", c.not_after AS "notAfter", r.from_fingerprint AS "fromFingerprint",
              r.regressions, ${ENDPOINTS_IN_SCOPE}
         FROM (SELECT DISTINCT ON (r.to_fingerprint) r.to_fingerprint, r.from_fingerprint, r.regressions
                 FROM rotations r
                 JOIN endpoint_certificates l
                   ON l.endpoint_id = r.endpoint_id AND l.cert_use = r.cert_use AND l.fingerprint = r.to_fingerprint AND l.is_current
                 JOIN endpoints e ON e.id = r.endpoint_id
                WHERE cardinality(r.regressions) > 0 AND ${inSubscriptionScope('e', '$1')}
                ORDER BY r.to_fingerprint, r.at DESC, r.id) r
         JOIN certificates c ON c.fingerprint = r.to_fingerprint`,
      [scope],
    );
    return rows.map(({ fromFingerprint, regressions, ...row }) => ({
      ...row,
      endpoints: sortedByName(row.endpoints),
      regressedRotation: { fromFingerprint, regressions },
    }));
  }

  /** Current certificates in scope superseded by a stored renewal not deployed, each with that renewal. */
  async findSupersededCurrent(scope: readonly string[], superseding: SupersedingWindow): Promise<SupersededCertificate[]> {
    const rows = await this.dataSource.query<(CurrentInScope & { newFingerprint: string; newNotBefore: Date })[]>(
      `SELECT c.fingerprint, c.common_name AS "commonName", c.not_after AS "notAfter",
              s."newFingerprint", s."newNotBefore", ${ENDPOINTS_IN_SCOPE}
         FROM (SELECT DISTINCT ON (c.fingerprint) c.fingerprint, superseding.fingerprint AS "newFingerprint",
                      superseding.not_before AS "newNotBefore"
                 FROM endpoint_certificates l
                 JOIN endpoints e ON e.id = l.endpoint_id
                 JOIN certificates c ON c.fingerprint = l.fingerprint
                 ${supersededByJoin({ link: 'l', certificate: 'c', endpoint: 'e', now: '$2', afterHours: '$3' })}
                WHERE l.is_current AND l.cert_use = 'tls' AND e.type = 'host' AND superseding.fingerprint IS NOT NULL
                  AND ${inSubscriptionScope('e', '$1')}
                ORDER BY c.fingerprint) s
         JOIN certificates c ON c.fingerprint = s.fingerprint`,
      [scope, superseding.now, superseding.afterHours],
    );
    return rows.map(({ newFingerprint, newNotBefore, ...row }) => ({
      ...row,
      endpoints: sortedByName(row.endpoints),
      supersededBy: { fingerprint: newFingerprint, notBefore: newNotBefore },
    }));
  }
}

/** The condition on link `l` that selects a scope, its values from $3. */
function linksIn(scope: SupersededScope): { where: string; values: unknown[] } {
  if (scope === 'all') return { where: 'true', values: [] };
  if ('endpointIds' in scope) return { where: 'l.endpoint_id = ANY($3::uuid[])', values: [scope.endpointIds] };
  if ('certificates' in scope) return { where: 'l.fingerprint = ANY($3::text[])', values: [scope.certificates] };
  return {
    where: 'l.fingerprint IN (SELECT r.certificate FROM certificate_renewals r WHERE r.renewal = ANY($3::text[]))',
    values: [scope.renewedBy],
  };
}

function sortedByName(endpoints: ExpiringEndpoint[]): ExpiringEndpoint[] {
  return [...endpoints].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
