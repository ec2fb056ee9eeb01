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

  async load(fingerprint: string, endpointIds: string[]): Promise<WebhookCertificateFacts> {
    const [certificate] = await this.dataSource.query<{ sans: string[]; issuerCommonName: string | null; notBefore: Date }[]>(
      `SELECT sans, issuer_common_name AS "issuerCommonName", not_before AS "notBefore" FROM certificates WHERE fingerprint = $1`,
      [fingerprint],
    );
    const endpoints = await this.dataSource.query<{ id: string; tags: string[] }[]>(
      'SELECT id, tags FROM endpoints WHERE id = ANY($1::uuid[])',
      [endpointIds],
    );
    return {
      sans: certificate?.sans ?? [],
      issuerCommonName: certificate?.issuerCommonName ?? null,
      notBefore: certificate?.notBefore ?? null,
      tagsByEndpoint: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.tags])),
    };
  }
}
