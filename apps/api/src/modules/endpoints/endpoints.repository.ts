import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ENDPOINT_WRITE_LOCK_KEY } from '../../database/advisory-lock-keys';
import { CountCache } from '../../database/count-cache';
import { escapeLike, searchSortsMatches, type SortKeyType, unindexedSortKey } from '../../database/like';
import { openRowStream, type RowStream, type SqlQuery } from '../../database/row-stream';
import { TableUpkeep } from '../../database/table-upkeep';
import type { Transaction } from '../../database/transaction';
import type { FindingCode } from '@certkeeper/domain';
import type { StarttlsProtocol } from '@certkeeper/domain/protocol';
import type { EndpointEntity, EndpointType } from './endpoint.entity';
import type { EndpointSort, EndpointSortKey } from './endpoint-sort';
import type { ScanHistoryEntity } from './scan-history.entity';
import { SCAN_WORK_CHANNEL } from './scan-work-channel';
import { TlsProfileEntity } from './tls-profile.entity';

/** The writable fields of an endpoint, already normalised for its type; `ignoredFindings` is stored by FindingsService. */
export type EndpointRecord = { ignoredFindings: FindingCode[] } & Pick<
  EndpointEntity,
  | 'name'
  | 'type'
  | 'enabled'
  | 'scanExempt'
  | 'scannerId'
  | 'notes'
  | 'tags'
  | 'dnsName'
  | 'port'
  | 'ipAddress'
  | 'starttls'
  | 'metadataUrl'
>;

/** An endpoint as read back, with what its latest successful scan found. */
export type EndpointRow = Omit<EndpointEntity, 'scanner' | 'scanRequestedAt'> & {
  chainComplete: boolean | null;
  resolvedIp: string | null;
  /** The finding codes it shows (docs/api-contract.md section 18) and those it ignores. */
  findings: string[];
  ignoredFindings: FindingCode[];
};

/** A row of the endpoint list (not of its export): whether it serves a certificate whose renewal is not deployed (docs/api-contract.md section 16). */
export type EndpointListRow = EndpointRow & { renewalNotDeployed: boolean };

/** The list filters (docs/api-contract.md section 4), without a page window. */
export interface EndpointCriteria {
  type?: EndpointType;
  enabled?: boolean;
  hasError?: boolean;
  tags?: string[];
  q?: string;
  /** A protocol, or 'none' for implicit TLS (host endpoints without an upgrade). */
  starttls?: StarttlsProtocol | 'none';
  /** Only endpoints with a current certificate whose notAfter is before this instant (expires_within). */
  expiringBefore?: Date;
  /** true: only endpoints serving a certificate whose renewal is not deployed (docs/api-contract.md section 16); false: none. */
  superseded?: boolean;
  /** Only endpoints showing any of these finding codes (`finding`). */
  findings?: string[];
  /** true: only endpoints showing a finding; false: only those showing none (`has_findings`). */
  hasFindings?: boolean;
  /** The list's order; name when omitted. */
  sort?: EndpointSort;
}

export interface EndpointFilter extends EndpointCriteria {
  limit: number;
  offset: number;
}

/** What makes two endpoints the same: (dnsName, port, ipAddress, scanner) for host, (metadataUrl, scanner) for saml. */
export function endpointIdentity(
  record: Pick<EndpointRecord, 'type' | 'dnsName' | 'port' | 'ipAddress' | 'metadataUrl' | 'scannerId'>,
): string | null {
  switch (record.type) {
    case 'host':
      return JSON.stringify(['host', record.dnsName, record.port, record.ipAddress, record.scannerId]);
    case 'saml':
      return JSON.stringify(['saml', record.metadataUrl, record.scannerId]);
    case 'manual':
      return null;
  }
}

const STORED_COLUMNS = `e.id, e.name, e.type, e.enabled, e.scan_exempt AS "scanExempt", e.scanner_id AS "scannerId", e.notes, e.tags,
         e.dns_name AS "dnsName", e.port, e.ip_address AS "ipAddress", e.starttls, e.metadata_url AS "metadataUrl",
         e.saml_metadata AS "samlMetadata", e.error_since AS "errorSince", e.last_scanned_at AS "lastScannedAt",
         e.last_scan_error AS "lastScanError", e.soonest_not_after AS "soonestNotAfter", e.created_at AS "createdAt", e.updated_at AS "updatedAt"`;

const ENDPOINT_COLUMNS = `${STORED_COLUMNS}, latest.chain_complete AS "chainComplete", latest.resolved_ip AS "resolvedIp",
         coalesce(f.codes, '{}') AS findings, coalesce(f.ignored, '{}') AS "ignoredFindings"`;

// What the latest successful scan of a host found, and the endpoint's findings; joined only to the rows being returned.
const LATEST_SCAN = `
    LEFT JOIN LATERAL (
      SELECT h.chain_complete, h.resolved_ip FROM scan_history h
       WHERE h.endpoint_id = e.id AND h.success ORDER BY h.scanned_at DESC LIMIT 1
    ) latest ON e.type = 'host'
    LEFT JOIN endpoint_findings f ON f.endpoint_id = e.id`;

const SELECT_ENDPOINT = `SELECT ${ENDPOINT_COLUMNS} FROM endpoints e ${LATEST_SCAN}`;

@Injectable()
export class EndpointsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly counts: CountCache,
    private readonly upkeep: TableUpkeep,
  ) {}

  withWriteLock<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (transaction) => {
      await transaction.query('SELECT pg_advisory_xact_lock($1)', [ENDPOINT_WRITE_LOCK_KEY]);
      return work(transaction);
    });
  }

  async findById(id: string, transaction?: Transaction): Promise<EndpointRow | null> {
    const rows = await (transaction ?? this.dataSource.manager).query<EndpointRow[]>(`${SELECT_ENDPOINT} WHERE e.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * One page in the requested order, and the number of all matches. A search (`q`) or a findings
   * filter is counted first: how many match decides how its page is found (windowSearch); other
   * pages count alongside.
   */
  async findPage(filter: EndpointFilter): Promise<{ rows: EndpointRow[]; total: number }> {
    const counted = matching(filter);
    const count = this.countOf(counted.where, counted.params, filter);
    const search = await this.windowSearch(filter, count);
    const { where, params } = search === 'probe' ? counted : matching(filter, { search });
    const order = orderOf(filter.sort ?? 'name', search === 'sort');
    const param = (value: unknown) => `$${params.push(value)}`;
    const [rows, total] = await Promise.all([
      // The window is chosen over (sort key, id) alone, an index-only scan even at a deep offset;
      // the rows and their latest scan are read for the page's 50 ids only.
      this.dataSource.query<EndpointRow[]>(
        `SELECT ${ENDPOINT_COLUMNS}
           FROM (SELECT e.id FROM endpoints e ${where} ORDER BY ${order.window} LIMIT ${param(filter.limit)} OFFSET ${param(filter.offset)}) page
           JOIN endpoints e ON e.id = page.id
           ${LATEST_SCAN}
          ORDER BY ${order.rows}`,
        params,
      ),
      count,
    ]);
    return { rows, total };
  }

  /** Which of these endpoints serve a certificate whose renewal is stored but not deployed (docs/api-contract.md section 16). */
  async findRenewalNotDeployed(endpointIds: string[]): Promise<Set<string>> {
    if (endpointIds.length === 0) return new Set();
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT DISTINCT l.endpoint_id AS id FROM endpoint_certificates l
        WHERE l.endpoint_id = ANY($1::uuid[]) AND l.superseded_by IS NOT NULL`,
      [endpointIds],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The number of endpoints matching the list filters. */
  countMatching(criteria: EndpointCriteria): Promise<number> {
    const { where, params } = matching(criteria);
    return this.countOf(where, params, criteria);
  }

  /** Every endpoint matching the list filters, in the list's order, for an export. */
  streamMatching(criteria: EndpointCriteria): Promise<RowStream<EndpointRow>> {
    return openRowStream(this.dataSource, matchingQuery(criteria));
  }

  /**
   * How the page's window is found (WindowSearch). A search (`q`) sorts its matches up to
   * substringSearchLimits' bound (see like.ts) and otherwise walks. A findings filter takes the
   * cheapest of the three (cheapestFindingsWindowSearch).
   */
  private async windowSearch(filter: EndpointFilter, count: Promise<number>): Promise<WindowSearch> {
    if (filter.q) return searchSortsMatches(await count) ? 'sort' : 'probe';
    if (!filtersByFindings(filter)) return 'probe';
    const [matches, endpoints] = await Promise.all([count, this.counts.count(countQuery('', []), ['endpoints'])]);
    return cheapestFindingsWindowSearch(matches, filter.offset + filter.limit, endpoints);
  }

  /**
   * From the count cache, unless the filters depend on the clock (expires_within), which nothing
   * notifies. `superseded` reads the renewal links keep, and stored findings their codes: both
   * notify when they change (migrations 1796400000000 and 1796607200000).
   */
  private async countOf(where: string, params: unknown[], criteria: EndpointCriteria): Promise<number> {
    const query = countQuery(where, params);
    if (criteria.expiringBefore === undefined)
      return this.counts.count(query, [
        'endpoints',
        ...(criteria.superseded === undefined ? [] : (['endpoint_certificates'] as const)),
        ...(filtersByFindings(criteria) ? (['endpoint_findings'] as const) : []),
      ]);
    const rows = await this.dataSource.query<{ total: number }[]>(query.text, query.values);
    return rows[0].total;
  }

  /** The identities (see endpointIdentity) already taken among endpoints that could collide with `records`. */
  async takenIdentities(records: EndpointRecord[], transaction: Transaction, exceptId?: string): Promise<Set<string>> {
    const dnsNames = [...new Set(records.flatMap((r) => (r.type === 'host' && r.dnsName ? [r.dnsName] : [])))];
    const urls = [...new Set(records.flatMap((r) => (r.type === 'saml' && r.metadataUrl ? [r.metadataUrl] : [])))];
    if (dnsNames.length === 0 && urls.length === 0) return new Set();
    const existing = await transaction.query<EndpointRecord[]>(
      `SELECT type, dns_name AS "dnsName", port, ip_address AS "ipAddress", metadata_url AS "metadataUrl", scanner_id AS "scannerId"
         FROM endpoints
        WHERE ((type = 'host' AND dns_name = ANY($1::text[])) OR (type = 'saml' AND metadata_url = ANY($2::text[])))
          AND id IS DISTINCT FROM $3::uuid`,
      [dnsNames, urls, exceptId ?? null],
    );
    return new Set(existing.map(endpointIdentity).filter((identity): identity is string => identity !== null));
  }

  /**
   * Inserts in one statement per chunk and returns the rows as stored (a new endpoint has no scan
   * yet). Ids are chosen by the caller so results map back to request rows. Call
   * keepStatisticsCurrent once the transaction has committed.
   */
  async insertMany(records: (EndpointRecord & { id: string })[], transaction: Transaction): Promise<EndpointRow[]> {
    if (records.length > 0) await this.upkeep.beforeCommit(transaction);
    const CHUNK = 2000;
    const inserted: EndpointRow[] = [];
    for (let start = 0; start < records.length; start += CHUNK) {
      const chunk = records.slice(start, start + CHUNK);
      const rows = await transaction.query<EndpointRow[]>(
        `INSERT INTO endpoints AS e (id, name, type, enabled, scan_exempt, scanner_id, notes, tags, dns_name, port, ip_address, starttls, metadata_url, search_text)
         SELECT r.id, r.name, r.type, r.enabled, r."scanExempt", r."scannerId", r.notes, r.tags, r."dnsName", r.port, r."ipAddress", r.starttls, r."metadataUrl",
                lower(r.name || ' ' || coalesce(r."dnsName", '') || ' ' || coalesce(r."metadataUrl", ''))
           FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, name text, type text, enabled boolean, "scanExempt" boolean, "scannerId" uuid,
                notes text, tags text[], "dnsName" text, port integer, "ipAddress" text, starttls text, "metadataUrl" text)
         RETURNING ${STORED_COLUMNS}, NULL::boolean AS "chainComplete", NULL::text AS "resolvedIp",
                   '{}'::text[] AS findings, '{}'::text[] AS "ignoredFindings"`,
        [JSON.stringify(chunk)],
      );
      inserted.push(...rows);
    }
    return inserted;
  }

  /**
   * After inserts have committed: the table's statistics and visibility map are brought up to date
   * once enough rows changed (TableUpkeep), so the list's plans fit the rows just imported.
   */
  keepStatisticsCurrent(): Promise<void> {
    return this.upkeep.afterWrite('endpoints', ENDPOINT_WRITE_LOCK_KEY);
  }

  async update(id: string, record: EndpointRecord, transaction: Transaction): Promise<void> {
    await transaction.query(
      `UPDATE endpoints SET name = $2, enabled = $3, scan_exempt = $4, scanner_id = $5, notes = $6, tags = $7, dns_name = $8, port = $9,
              ip_address = $10, metadata_url = $11, starttls = $12, updated_at = now(),
              search_text = lower($2 || ' ' || coalesce($8, '') || ' ' || coalesce($11, ''))
        WHERE id = $1`,
      [
        id,
        record.name,
        record.enabled,
        record.scanExempt,
        record.scannerId,
        record.notes,
        record.tags,
        record.dnsName,
        record.port,
        record.ipAddress,
        record.metadataUrl,
        record.starttls,
      ],
    );
  }

  /**
   * Records a scan request; a pending one keeps its earlier time, so asking twice changes nothing
   * (the request is answered by the first result ingested after it). The database's clock, like
   * the ingest that clears it, so the two compare on one clock.
   */
  async requestScan(id: string, transaction: Transaction): Promise<void> {
    await transaction.query('UPDATE endpoints SET scan_requested_at = coalesce(scan_requested_at, now()) WHERE id = $1', [id]);
  }

  /** Wakes the long-polls of these scanners (null: the default scanner's) on every replica, at commit. */
  async notifyScanWork(scannerIds: (string | null)[], transaction: Transaction): Promise<void> {
    const payloads = [...new Set(scannerIds.map((id) => id ?? ''))];
    if (payloads.length === 0) return;
    await transaction.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [SCAN_WORK_CHANNEL, payloads]);
  }

  async delete(id: string, transaction: Transaction): Promise<boolean> {
    const result = await transaction.query<[unknown[], number]>('DELETE FROM endpoints WHERE id = $1', [id]);
    return result[1] > 0;
  }

  async replaceTags(id: string, tags: string[], transaction: Transaction): Promise<void> {
    await transaction.query('UPDATE endpoints SET tags = $2, updated_at = now() WHERE id = $1', [id, tags]);
  }

  /** Every tag in use with the number of endpoints carrying it. */
  listTagCounts(): Promise<{ tag: string; endpointCount: number }[]> {
    return this.dataSource.query(
      `SELECT tag, count(*)::int AS "endpointCount" FROM endpoints CROSS JOIN LATERAL unnest(tags) AS tag GROUP BY tag ORDER BY tag`,
    );
  }

  async findHistory(endpointId: string, window: { limit: number; offset: number }): Promise<{ rows: ScanHistoryEntity[]; total: number }> {
    const history = historyQuery(endpointId);
    const manager = this.dataSource.manager;
    const [rows, counted] = await Promise.all([
      manager.query<ScanHistoryEntity[]>(`${history.text} LIMIT $2 OFFSET $3`, [...history.values, window.limit, window.offset]),
      manager.query<{ total: number }[]>('SELECT count(*)::int AS total FROM scan_history WHERE endpoint_id = $1', [endpointId]),
    ]);
    return { rows, total: counted[0].total };
  }

  /** The endpoint's whole scan history, newest first, for an export. */
  streamHistory(endpointId: string): Promise<RowStream<ScanHistoryEntity>> {
    return openRowStream(this.dataSource, historyQuery(endpointId));
  }

  findTlsProfile(endpointId: string): Promise<TlsProfileEntity | null> {
    return this.dataSource.getRepository(TlsProfileEntity).findOneBy({ endpointId });
  }

  async existingScannerIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.dataSource.query<{ id: string }[]>('SELECT id FROM scanners WHERE id = ANY($1::uuid[])', [ids]);
    return new Set(rows.map((row) => row.id));
  }

  async defaultScannerId(transaction?: Transaction): Promise<string | null> {
    const rows = await (transaction ?? this.dataSource.manager).query<{ id: string }[]>('SELECT id FROM scanners WHERE is_default');
    return rows[0]?.id ?? null;
  }
}

/**
 * The WHERE clause of the list filters and its parameters, shared by the page, its count and the
 * export. `search` says how the page's window is found (WindowSearch): the endpoints showing the
 * findings asked for are then looked up by id (`sort`), or hashed once and each walked row tested
 * against them (`hash`), rather than joined row by row (`probe`, the default).
 */
function matching(criteria: EndpointCriteria, { search = 'probe' }: { search?: WindowSearch } = {}): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (criteria.type) conditions.push(`e.type = ${param(criteria.type)}`);
  if (criteria.enabled !== undefined) conditions.push(`e.enabled = ${param(criteria.enabled)}`);
  if (criteria.hasError !== undefined) conditions.push(criteria.hasError ? 'e.error_since IS NOT NULL' : 'e.error_since IS NULL');
  if (criteria.tags?.length) conditions.push(`e.tags && ${param(criteria.tags)}::text[]`);
  if (criteria.starttls === 'none') conditions.push(`e.type = 'host' AND e.starttls IS NULL`);
  else if (criteria.starttls) conditions.push(`e.starttls = ${param(criteria.starttls)}`);
  if (criteria.q) conditions.push(`e.search_text LIKE ${param(`%${escapeLike(criteria.q.toLowerCase())}%`)}`);
  if (criteria.expiringBefore) conditions.push(`e.soonest_not_after < ${param(criteria.expiringBefore)}`);
  if (criteria.superseded !== undefined) {
    conditions.push(criteria.superseded ? SERVES_SUPERSEDED : `NOT ${SERVES_SUPERSEDED}`);
  }
  // Stored findings, GIN-indexed (migration RevocationAndFindings): an index lookup, never an evaluation.
  if (criteria.findings?.length)
    conditions.push(
      showingFindings(`SELECT endpoint_id FROM endpoint_findings WHERE codes && ${param(criteria.findings)}::text[]`, search),
    );
  if (criteria.hasFindings && search !== 'probe')
    conditions.push(showingFindings(`SELECT endpoint_id FROM endpoint_findings WHERE codes <> '{}'`, search));
  else if (criteria.hasFindings !== undefined)
    conditions.push(
      `${criteria.hasFindings ? '' : 'NOT '}EXISTS (SELECT 1 FROM endpoint_findings hf WHERE hf.endpoint_id = e.id AND hf.codes <> '{}')`,
    );
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/**
 * `e` is among the endpoints `showing` selects, written for the window's search:
 * - `sort`: by id, so that PostgreSQL looks each match up rather than joining them to a read of
 *   every endpoint;
 * - `hash`: a test PostgreSQL cannot turn into a join (`IS TRUE`), so it hashes the matches once
 *   and tests each row of the walk against the hash;
 * - `probe`: a semi-join, which the walk answers by looking up each row's findings.
 */
function showingFindings(showing: string, search: WindowSearch): string {
  if (search === 'sort') return `e.id = ANY(ARRAY(${showing}))`;
  if (search === 'hash') return `(e.id IN (${showing})) IS TRUE`;
  return `e.id IN (${showing})`;
}

/**
 * How a filtered page's window is found:
 * - `probe`: walking the sort key's index, testing each row (by looking up its findings);
 * - `hash`: walking the index, testing each row against the matches, read once and hashed;
 * - `sort`: reading the matches, looking each up and sorting them.
 */
export type WindowSearch = 'probe' | 'hash' | 'sort';

/**
 * The cheapest way to find a findings filter's window, by what each costs in look-ups of one endpoint's
 * findings row (docs/performance.md, "Findings"). A walk finds the window after about
 * window × endpoints / matches rows. Probing tests each with a look-up; the hashed walk reads each
 * match once from the GIN index (about half a look-up) and then passes a walked row for a
 * twentieth; sorting looks each match up and sorts it (about two). At 100,000 endpoints and the
 * first page: sorted up to about 400 matches, hashed up to about 3,000, probed above.
 */
export function cheapestFindingsWindowSearch(matches: number, window: number, endpoints: number): WindowSearch {
  const walked = (window * endpoints) / Math.max(matches, 1);
  const costs: Record<WindowSearch, number> = {
    probe: walked,
    hash: matches <= HASHABLE_MATCHES ? matches / 2 + walked / 20 : Infinity,
    sort: 2 * matches,
  };
  return (Object.keys(costs) as WindowSearch[]).reduce((cheapest, search) => (costs[search] < costs[cheapest] ? search : cheapest));
}

/**
 * PostgreSQL hashes the matches only when it expects them to fit in hash memory (work_mem × 2,
 * 8 MB by default: about 200,000 ids); beyond, it would run their query again for every walked
 * row. Half that leaves room for its estimate to be low.
 */
const HASHABLE_MATCHES = 100_000;

function filtersByFindings(criteria: EndpointCriteria): boolean {
  return (criteria.findings?.length ?? 0) > 0 || criteria.hasFindings !== undefined;
}

/** Reads only the counted columns of endpoints and the findings' codes (migrations 1795320000000, 1796607200000), so the count cache may keep it. */
function countQuery(where: string, params: unknown[]): SqlQuery {
  return { text: `SELECT count(*)::int AS total FROM endpoints e ${where}`, values: [...params] };
}

/** Every matching endpoint with its latest scan, in the order of the list. */
function matchingQuery(criteria: EndpointCriteria): SqlQuery {
  const { where, params } = matching(criteria);
  return { text: `${SELECT_ENDPOINT} ${where} ORDER BY ${orderOf(criteria.sort ?? 'name', false).rows}`, values: params };
}

/**
 * Whether endpoint `e` serves a current certificate superseded by a stored renewal not deployed
 * (docs/api-contract.md section 16): the renewal its link keeps, read through the partial index of
 * such links (migration LinkSupersededBy), never the rule.
 */
const SERVES_SUPERSEDED = `e.id IN (SELECT l.endpoint_id FROM endpoint_certificates l WHERE l.superseded_by IS NOT NULL)`;

/**
 * Each sort key as its index (migration EndpointListSorts) is written, so that the page's window
 * is an index-only scan. Endpoints without a value (no current certificate, never scanned) come
 * last in both directions; ties go by id, reversed with the key.
 */
const SORT_KEYS: Record<EndpointSortKey, { column: string; type: SortKeyType; collation?: string; nullable: boolean }> = {
  name: { column: 'e.name', type: 'text', collation: 'certkeeper_natural', nullable: false },
  daysRemaining: { column: 'e.soonest_not_after', type: 'timestamptz', nullable: true },
  lastScannedAt: { column: 'e.last_scanned_at', type: 'timestamptz', nullable: true },
  createdAt: { column: 'e.created_at', type: 'timestamptz', nullable: false },
};

/**
 * The ORDER BY of the page's window and of its rows. When the matches are to be sorted (a search or
 * findings filter with few matches, see windowSearch) the window's key is an expression no index
 * serves (unindexedSortKey), so that they are read first rather than found by walking the key's
 * index; the rows keep the plain order.
 */
function orderOf(sort: EndpointSort, sortMatches: boolean): { window: string; rows: string } {
  const descending = sort.startsWith('-');
  const key = SORT_KEYS[(descending ? sort.slice(1) : sort) as EndpointSortKey];
  const by = (column: string) => {
    const value = key.collation ? `${column} COLLATE ${key.collation}` : column;
    return descending ? `${value} DESC${key.nullable ? ' NULLS LAST' : ''}, e.id DESC` : `${value}, e.id`;
  };
  return { window: by(sortMatches ? unindexedSortKey(key.column, key.type) : key.column), rows: by(key.column) };
}

function historyQuery(endpointId: string): SqlQuery {
  return {
    text: `SELECT id, endpoint_id AS "endpointId", scanned_at AS "scannedAt", success, error, resolved_ip AS "resolvedIp", fingerprint,
                  tls_version AS "tlsVersion", chain_complete AS "chainComplete", scanner_id AS "scannerId"
             FROM scan_history WHERE endpoint_id = $1 ORDER BY scanned_at DESC, id DESC`,
    values: [endpointId],
  };
}
