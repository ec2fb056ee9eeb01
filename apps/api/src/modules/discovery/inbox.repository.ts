import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { escapeLike } from '../../database/like';
import { openRowStream, type RowStream, type SqlQuery } from '../../database/row-stream';
import type { Transaction } from '../../database/transaction';
import { DiscoveryInboxEntryEntity } from './inbox-entry.entity';

export const INBOX_STATUSES = ['new', 'tracked', 'promoted', 'dismissed'] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

/** An inbox row as read: the entry, its certificate's summary and the status derived from both. */
export interface InboxView {
  id: string;
  networkId: string;
  address: string;
  port: number;
  hostnames: string[];
  fingerprint: string | null;
  commonName: string | null;
  sans: string[] | null;
  issuerCommonName: string | null;
  notAfter: Date | null;
  status: InboxStatus;
  endpointId: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** The inbox list's filters, without a page window. */
export interface InboxCriteria {
  status?: InboxStatus;
  networkId?: string;
  q?: string;
}

export interface InboxFilter extends InboxCriteria {
  limit: number;
  offset: number;
}

/** A service to record from a sweep report, its certificate already stored. */
export interface FoundService {
  address: string;
  port: number;
  reverseName: string | null;
  hostnames: string[];
  fingerprint: string | null;
}

/**
 * The status of an entry, derived when read (docs/api-contract.md section 8): `promoted` while the
 * endpoint its promote created exists; `dismissed` as decided; `tracked` when a host endpoint on
 * the port names the address (as its IP address or DNS name) or last reached it; else `new`.
 */
const VIEW = `
  SELECT i.id, i.network_id AS "networkId", i.address, i.port, i.hostnames, i.fingerprint,
         c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName", c.not_after AS "notAfter",
         i.first_seen_at AS "firstSeenAt", i.last_seen_at AS "lastSeenAt",
         CASE WHEN i.disposition = 'promoted' AND i.endpoint_id IS NOT NULL THEN 'promoted'
              WHEN i.disposition = 'dismissed' THEN 'dismissed'
              WHEN COALESCE(i.tracked_endpoint_id, named.id) IS NOT NULL THEN 'tracked'
              ELSE 'new' END AS status,
         CASE WHEN i.disposition = 'promoted' AND i.endpoint_id IS NOT NULL THEN i.endpoint_id
              ELSE COALESCE(i.tracked_endpoint_id, named.id) END AS "endpointId"
    FROM discovery_inbox i
    LEFT JOIN certificates c ON c.fingerprint = i.fingerprint
    LEFT JOIN LATERAL (
      SELECT e.id FROM endpoints e
       WHERE e.type = 'host' AND e.port = i.port AND (e.ip_address = i.address OR e.dns_name = i.address)
       ORDER BY e.created_at, e.id
       LIMIT 1) named ON true`;

@Injectable()
export class InboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findPage(filter: InboxFilter): Promise<{ rows: InboxView[]; total: number }> {
    const { where, parameters } = matching(filter);
    const [counted] = await this.dataSource.query<{ total: string }[]>(`SELECT count(*) AS total FROM (${VIEW}) v ${where}`, parameters);
    const select = matchingQuery(filter);
    const rows = await this.dataSource.query<InboxView[]>(
      `${select.text} LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...select.values, filter.limit, filter.offset],
    );
    return { rows, total: Number(counted.total) };
  }

  /** Every entry the list filters match, in the list's order (newest first), for an export. */
  streamMatching(criteria: InboxCriteria): Promise<RowStream<InboxView>> {
    return openRowStream(this.dataSource, matchingQuery(criteria));
  }

  async findViews(ids: string[], transaction?: Transaction): Promise<Map<string, InboxView>> {
    if (ids.length === 0) return new Map();
    const rows = await (transaction ?? this.dataSource.manager).query<InboxView[]>(`SELECT * FROM (${VIEW}) v WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * A host endpoint whose latest scan reached each (address, port): a name that resolves to a
   * discovered address tracks it too. Endpoints naming the address outright are found when read.
   */
  async endpointsThatReached(services: { address: string; port: number }[], transaction: Transaction): Promise<Map<string, string>> {
    if (services.length === 0) return new Map();
    const rows = await transaction.query<{ address: string; port: number; endpointId: string }[]>(
      `SELECT f.address, f.port, reached.id AS "endpointId"
         FROM unnest($1::text[], $2::int[]) AS f(address, port)
         JOIN LATERAL (
           SELECT e.id FROM endpoints e
             JOIN LATERAL (SELECT h.resolved_ip FROM scan_history h WHERE h.endpoint_id = e.id ORDER BY h.scanned_at DESC LIMIT 1) latest ON true
            WHERE e.type = 'host' AND e.port = f.port AND latest.resolved_ip = f.address
            ORDER BY e.created_at, e.id
            LIMIT 1) reached ON true`,
      [services.map((s) => s.address), services.map((s) => s.port)],
    );
    return new Map(rows.map((row) => [serviceKey(row), row.endpointId]));
  }

  /**
   * One row per (network, address, port): a later sweep updates what it saw. A dismissed entry
   * stays dismissed while the same certificate is there, and becomes new when another one is.
   */
  async upsertFound(
    sweep: { id: string; networkId: string },
    services: (FoundService & { trackedEndpointId: string | null })[],
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    if (services.length === 0) return;
    await transaction.query(
      `INSERT INTO discovery_inbox
         (network_id, address, port, reverse_name, hostnames, fingerprint, tracked_endpoint_id, first_seen_at, last_seen_at, last_sweep_id)
       SELECT $1, f.address, f.port, f.reverse_name, ARRAY(SELECT jsonb_array_elements_text(f.hostnames)), f.fingerprint, f.tracked, $2, $2, $3
         FROM jsonb_to_recordset($4::jsonb) AS f(address text, port int, reverse_name text, hostnames jsonb, fingerprint text, tracked uuid)
       ON CONFLICT (network_id, address, port) DO UPDATE SET
         reverse_name = EXCLUDED.reverse_name,
         hostnames = EXCLUDED.hostnames,
         fingerprint = EXCLUDED.fingerprint,
         tracked_endpoint_id = EXCLUDED.tracked_endpoint_id,
         last_seen_at = EXCLUDED.last_seen_at,
         last_sweep_id = EXCLUDED.last_sweep_id,
         disposition = CASE
           WHEN discovery_inbox.disposition = 'dismissed' AND discovery_inbox.dismissed_fingerprint IS DISTINCT FROM EXCLUDED.fingerprint
           THEN 'new' ELSE discovery_inbox.disposition END,
         dismissed_fingerprint = CASE
           WHEN discovery_inbox.disposition = 'dismissed' AND discovery_inbox.dismissed_fingerprint IS DISTINCT FROM EXCLUDED.fingerprint
           THEN NULL ELSE discovery_inbox.dismissed_fingerprint END`,
      [
        sweep.networkId,
        at,
        sweep.id,
        JSON.stringify(
          services.map((s) => ({
            address: s.address,
            port: s.port,
            reverse_name: s.reverseName,
            hostnames: s.hostnames,
            fingerprint: s.fingerprint,
            tracked: s.trackedEndpointId,
          })),
        ),
      ],
    );
  }

  /** False when the entry was promoted meanwhile (a concurrent promote won). */
  async markPromoted(id: string, endpointId: string, transaction?: Transaction): Promise<boolean> {
    const [, count] = await (transaction ?? this.dataSource.manager).query<[unknown[], number]>(
      `UPDATE discovery_inbox SET disposition = 'promoted', endpoint_id = $2, dismissed_fingerprint = NULL
        WHERE id = $1 AND NOT (disposition = 'promoted' AND endpoint_id IS NOT NULL)`,
      [id, endpointId],
    );
    return count > 0;
  }

  /** Remembers the certificate there now: only another one brings the entry back. */
  async markDismissed(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource
      .getRepository(DiscoveryInboxEntryEntity)
      .createQueryBuilder()
      .update()
      .set({ disposition: 'dismissed', dismissedFingerprint: () => 'fingerprint', endpointId: null })
      .whereInIds(ids)
      .execute();
  }
}

export const serviceKey = (service: { address: string; port: number }) => `${service.address} ${service.port}`;

/** The WHERE clause of the list filters over the view and its parameters, shared by the page, its count and the export. */
function matching(criteria: InboxCriteria): { where: string; parameters: unknown[] } {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  if (criteria.status) conditions.push(`status = $${parameters.push(criteria.status)}`);
  if (criteria.networkId) conditions.push(`"networkId" = $${parameters.push(criteria.networkId)}`);
  if (criteria.q) {
    const pattern = `$${parameters.push(`%${escapeLike(criteria.q)}%`)}`;
    conditions.push(
      `(address ILIKE ${pattern} OR array_to_string(hostnames, ' ') ILIKE ${pattern} OR "commonName" ILIKE ${pattern} OR fingerprint ILIKE ${pattern})`,
    );
  }
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', parameters };
}

function matchingQuery(criteria: InboxCriteria): SqlQuery {
  const { where, parameters } = matching(criteria);
  return { text: `SELECT * FROM (${VIEW}) v ${where} ORDER BY "firstSeenAt" DESC, id`, values: parameters };
}
