import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EndpointType } from '../endpoints/endpoint.entity';
import { inSubscriptionScope } from './subscription-scope';

export interface ExpiringEndpoint {
  id: string;
  name: string;
  type: EndpointType;
}

/** A certificate current on at least one endpoint, with every endpoint it is current on. */
export interface ExpiringCertificate {
  fingerprint: string;
  commonName: string | null;
  notBefore: Date;
  notAfter: Date;
  endpoints: ExpiringEndpoint[];
}

/**
 * What is about to expire for e-mail alerts and calendar feeds (docs/api-contract.md section 6),
 * scoped by the one rule they share with the dashboard (inSubscriptionScope): a user with tag
 * subscriptions sees certificates current on endpoints sharing at least one subscribed tag; a user
 * with none sees everything. Disabled and scan-exempt endpoints count.
 */
@Injectable()
export class ExpiryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Certificates expiring before `before` (expired ones included), soonest first, one row per certificate. */
  async findCurrentExpiringBefore(before: Date, subscriptions: readonly string[]): Promise<ExpiringCertificate[]> {
    const rows = await this.dataSource.query<ExpiringCertificate[]>(
      `SELECT c.fingerprint, c.common_name AS "commonName", c.not_before AS "notBefore", c.not_after AS "notAfter",
              json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type) ORDER BY e.name, e.id) AS endpoints
         FROM endpoint_certificates l
         JOIN endpoints e ON e.id = l.endpoint_id
         JOIN certificates c ON c.fingerprint = l.fingerprint
        WHERE l.is_current AND l.not_after < $1 AND ${inSubscriptionScope('e', '$2')}
        GROUP BY c.fingerprint
        ORDER BY c.not_after, c.fingerprint`,
      [before, subscriptions],
    );
    return rows.map((row) => ({ ...row, endpoints: uniqueById(row.endpoints) }));
  }
}

/** One certificate linked twice to one endpoint (signing and encryption) names that endpoint once. */
export function uniqueById(endpoints: ExpiringEndpoint[]): ExpiringEndpoint[] {
  const seen = new Set<string>();
  return endpoints.filter((endpoint) => !seen.has(endpoint.id) && seen.add(endpoint.id));
}
