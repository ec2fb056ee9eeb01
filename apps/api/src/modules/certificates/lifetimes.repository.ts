import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { inSubscriptionScope } from '../expiry/subscription-scope';

export interface LifetimeCount {
  days: number;
  certificates: number;
}

/** How long the certificates in use live (docs/api-contract.md section 15), for the alert policy's worked examples. */
@Injectable()
export class LifetimesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Current, unexpired certificates in scope counted per lifetime in whole days, most common
   * first. A certificate current on several endpoints counts once. Every lifetime is answered:
   * there are few (one per CA profile and a handful of manual ones), and the total needs them all.
   */
  countByLifetime(now: Date, subscriptions: readonly string[]): Promise<LifetimeCount[]> {
    return this.dataSource.query<LifetimeCount[]>(
      `SELECT greatest(1, round(extract(epoch FROM c.not_after - c.not_before) / 86400))::int AS days, count(*)::int AS certificates
         FROM certificates c
        WHERE c.fingerprint IN (
                SELECT l.fingerprint FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
                 WHERE l.is_current AND l.not_after > $1 AND ${inSubscriptionScope('e', '$2')})
        GROUP BY 1
        ORDER BY certificates DESC, days`,
      [now, subscriptions],
    );
  }
}
