import type { RenewalWindow } from '@certkeeper/domain';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type ExpiringCertificate, uniqueById } from '../expiry/expiry.repository';
import { inSubscriptionScope } from '../expiry/subscription-scope';

/** A certificate to ask about: current, unexpired, with an authority key identifier, and due. */
export interface DueCertificate {
  fingerprint: string;
  authorityKeyId: string;
  serialNumber: string;
}

/** What one CA said about one issuer key id: it answers for it (learnt), or it does not (a 404, kept 24 hours). */
export interface IssuerAnswer {
  authorityKeyId: string;
  caName: string;
  answers: boolean;
  checkedAt: Date;
}

export interface StoredRenewalInfo extends RenewalWindow {
  caName: string;
  checkedAt: Date;
  nextCheckAt: Date;
}

export interface RenewalInfoRow extends StoredRenewalInfo {
  fingerprint: string;
}

/** A current certificate whose suggested window has ended, with the endpoints in scope it is current on. */
export interface OverdueCertificate extends ExpiringCertificate {
  renewalWindow: RenewalWindow;
}

@Injectable()
export class RenewalInfoRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Current, unexpired certificates with an authority key identifier, never asked about or whose
   * next check has come, grouped by issuer key id.
   */
  dueCertificates(now: Date): Promise<DueCertificate[]> {
    return this.dataSource.query<DueCertificate[]>(
      `SELECT c.fingerprint, c.authority_key_id AS "authorityKeyId", c.serial_number AS "serialNumber"
         FROM certificates c
         LEFT JOIN renewal_info r ON r.fingerprint = c.fingerprint
        WHERE c.authority_key_id IS NOT NULL AND c.not_after > $1
          AND (r.next_check_at IS NULL OR r.next_check_at <= $1)
          AND EXISTS (SELECT 1 FROM endpoint_certificates l WHERE l.fingerprint = c.fingerprint AND l.is_current)
        ORDER BY c.authority_key_id, c.fingerprint`,
      [now],
    );
  }

  issuerAnswers(authorityKeyIds: readonly string[]): Promise<IssuerAnswer[]> {
    return this.dataSource.query<IssuerAnswer[]>(
      `SELECT authority_key_id AS "authorityKeyId", ca_name AS "caName", answers, checked_at AS "checkedAt"
         FROM renewal_info_issuers WHERE authority_key_id = ANY($1::text[])`,
      [authorityKeyIds],
    );
  }

  /** Records what CAs said about one issuer key id and the windows of its certificates, together. */
  async recordIssuer(answers: readonly IssuerAnswer[], windows: readonly RenewalInfoRow[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (answers.length > 0) {
        await manager.query(
          `INSERT INTO renewal_info_issuers (authority_key_id, ca_name, answers, checked_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::timestamptz[])
           ON CONFLICT (authority_key_id, ca_name) DO UPDATE SET answers = excluded.answers, checked_at = excluded.checked_at`,
          [
            answers.map((a) => a.authorityKeyId),
            answers.map((a) => a.caName),
            answers.map((a) => a.answers),
            answers.map((a) => a.checkedAt),
          ],
        );
      }
      if (windows.length === 0) return;
      await manager.query(
        `INSERT INTO renewal_info (fingerprint, ca_name, window_start, window_end, explanation_url, checked_at, next_check_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::timestamptz[])
         ON CONFLICT (fingerprint) DO UPDATE SET ca_name = excluded.ca_name, window_start = excluded.window_start,
           window_end = excluded.window_end, explanation_url = excluded.explanation_url,
           checked_at = excluded.checked_at, next_check_at = excluded.next_check_at`,
        [
          windows.map((w) => w.fingerprint),
          windows.map((w) => w.caName),
          windows.map((w) => w.start),
          windows.map((w) => w.end),
          windows.map((w) => w.explanationUrl),
          windows.map((w) => w.checkedAt),
          windows.map((w) => w.nextCheckAt),
        ],
      );
    });
  }

  async find(fingerprint: string): Promise<StoredRenewalInfo | null> {
    const rows = await this.dataSource.query<StoredRenewalInfo[]>(
      `SELECT ca_name AS "caName", window_start AS "start", window_end AS "end", explanation_url AS "explanationUrl",
              checked_at AS "checkedAt", next_check_at AS "nextCheckAt"
         FROM renewal_info WHERE fingerprint = $1`,
      [fingerprint],
    );
    return rows[0] ?? null;
  }

  /** Current certificates in scope whose suggested window ended by `now`, one row per certificate (the renewal_overdue facts). */
  async findOverdue(now: Date, subscriptions: readonly string[]): Promise<OverdueCertificate[]> {
    const rows = await this.dataSource.query<(ExpiringCertificate & { start: Date; end: Date; explanationUrl: string | null })[]>(
      `SELECT c.fingerprint, c.common_name AS "commonName", c.not_before AS "notBefore", c.not_after AS "notAfter",
              r.window_start AS "start", r.window_end AS "end", r.explanation_url AS "explanationUrl",
              json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type) ORDER BY e.name, e.id) AS endpoints
         FROM renewal_info r
         JOIN certificates c ON c.fingerprint = r.fingerprint
         JOIN endpoint_certificates l ON l.fingerprint = r.fingerprint AND l.is_current
         JOIN endpoints e ON e.id = l.endpoint_id
        WHERE r.window_end <= $1 AND ${inSubscriptionScope('e', '$2')}
        GROUP BY c.fingerprint, r.fingerprint
        ORDER BY r.window_end, c.fingerprint`,
      [now, subscriptions],
    );
    return rows.map(({ start, end, explanationUrl, ...certificate }) => ({
      ...certificate,
      endpoints: uniqueById(certificate.endpoints),
      renewalWindow: { start, end, explanationUrl },
    }));
  }

  /** The dashboard's `renewalOverdue`: current certificates in scope whose suggested window ended by `now`. */
  async countOverdue(now: Date, subscriptions: readonly string[]): Promise<number> {
    const rows = await this.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM renewal_info r
        WHERE r.window_end <= $1
          AND EXISTS (SELECT 1 FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
                       WHERE l.fingerprint = r.fingerprint AND l.is_current AND ${inSubscriptionScope('e', '$2')})`,
      [now, subscriptions],
    );
    return rows[0].count;
  }
}
