import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** What a webhook's data carries beyond the alert's own facts: the certificate's names and start, each endpoint's tags. */
export interface WebhookCertificateFacts {
  sans: string[];
  issuerCommonName: string | null;
  notBefore: Date | null;
  tagsByEndpoint: Map<string, string[]>;
}

@Injectable()
export class WebhookFactsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One query: the certificate's facts and its endpoints' tags. */
  async load(fingerprint: string, endpointIds: string[]): Promise<WebhookCertificateFacts> {
    const [row] = await this.dataSource.query<
      { sans: string[] | null; issuerCommonName: string | null; notBefore: Date | null; endpoints: { id: string; tags: string[] }[] }[]
    >(
      `SELECT c.sans, c.issuer_common_name AS "issuerCommonName", c.not_before AS "notBefore",
              (SELECT COALESCE(json_agg(json_build_object('id', e.id, 'tags', e.tags)), '[]') FROM endpoints e WHERE e.id = ANY($2::uuid[])) AS endpoints
         FROM (SELECT 1) AS one LEFT JOIN certificates c ON c.fingerprint = $1`,
      [fingerprint, endpointIds],
    );
    return {
      sans: row.sans ?? [],
      issuerCommonName: row.issuerCommonName,
      notBefore: row.notBefore === null ? null : new Date(row.notBefore),
      tagsByEndpoint: new Map(row.endpoints.map((endpoint) => [endpoint.id, endpoint.tags])),
    };
  }
}
