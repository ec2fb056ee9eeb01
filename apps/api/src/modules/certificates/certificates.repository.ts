import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { dnsNamesOf, type ParsedCertificate } from '@certkeeper/domain/x509';
import { DataSource } from 'typeorm';
import { CountCache, type CountedTable } from '../../database/count-cache';
import { escapeLike, searchSortKey } from '../../database/like';
import { forEachRow } from '../../database/pool';
import { openRowStream, type RowStream, type SqlQuery } from '../../database/row-stream';
import type { Transaction } from '../../database/transaction';
import type { EndpointType } from '../endpoints/endpoint.entity';
import type { CertUse } from '../links/endpoint-certificate.entity';
import type { CurrentCertificateRow } from '../links/links.repository';
import { supersededByColumns, storedSupersededByJoin } from '../renewals/superseded-by';
import { CertificateEntity } from './certificate.entity';

/** The columns of a certificate list row (docs/api-contract.md section 5). */
export type CertificateSummary = Pick<
  CertificateEntity,
  | 'fingerprint'
  | 'commonName'
  | 'sans'
  | 'issuerCommonName'
  | 'serialNumber'
  | 'notBefore'
  | 'notAfter'
  | 'keyAlgorithm'
  | 'keySize'
  | 'isCa'
  | 'selfSigned'
  | 'trustedBy'
  | 'isTrustAnchor'
>;

/** A current link with its endpoint, for the active and expiring lists. */
export interface ActiveLinkRow extends CurrentCertificateRow {
  endpointName: string;
  endpointType: EndpointType;
  endpointTags: string[];
}

/** The certificate list's filters, without a page window. */
export interface CertificateCriteria {
  q?: string;
  isCa?: boolean;
  selfSigned?: boolean;
  expired?: boolean;
  /** true: current on at least one endpoint; false: current on none. */
  inUse?: boolean;
  /** false: trust anchors left out. */
  anchors?: boolean;
  now: Date;
}

export interface CertificateFilter extends CertificateCriteria {
  limit: number;
  offset: number;
}

/** The active and expiring lists' filters, without a page window. */
export interface ActiveCriteria {
  /** Only links whose certificate expires before this instant (the expiring list). */
  notAfterBefore?: Date;
  type?: EndpointType;
  tags?: string[];
  certUse?: CertUse;
}

export interface ActiveFilter extends ActiveCriteria {
  limit: number;
  offset: number;
}

export interface LookupCriteria {
  sha256?: string;
  sha1?: string;
  serialNumber?: string;
  /** SAN or CN values that could cover the hostname: itself and its one-label wildcard. */
  hostnameCandidates?: string[];
}

/** The columns of a list row, for any query that aliases certificates as `c`. */
export const SUMMARY_COLUMNS = `c.fingerprint, c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName",
  c.serial_number AS "serialNumber", c.not_before AS "notBefore", c.not_after AS "notAfter", c.key_algorithm AS "keyAlgorithm",
  c.key_size AS "keySize", c.is_ca AS "isCa", c.self_signed AS "selfSigned", c.trusted_by AS "trustedBy", c.is_trust_anchor AS "isTrustAnchor"`;

/** Builds `$n` placeholders while collecting their values. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}

@Injectable()
export class CertificatesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly counts: CountCache,
  ) {}

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Stores certificates not seen before; returns the fingerprints that were new. Safe under concurrency. */
  async storeMany(certificates: ParsedCertificate[], transaction: Transaction): Promise<Set<string>> {
    if (certificates.length === 0) return new Set();
    const rows = certificates.map((c) => ({
      fingerprint: c.fingerprintSha256,
      sha1: c.fingerprintSha1,
      der: Buffer.from(c.der).toString('hex'),
      serial: c.serialNumber,
      subject: c.subject,
      issuer: c.issuer,
      subjectDnHash: c.subjectDnHash ?? null,
      issuerDnHash: c.issuerDnHash ?? null,
      cn: c.commonName,
      o: c.subjectOrganization,
      ou: c.subjectOrganizationalUnit,
      issuerCn: c.issuerCommonName,
      issuerO: c.issuerOrganization,
      sans: c.sans,
      dnsNames: dnsNamesOf(c.sans),
      searchText: [c.commonName ?? '', ...c.sans].join(' ').toLowerCase(),
      notBefore: c.notBefore.toISOString(),
      notAfter: c.notAfter.toISOString(),
      keyAlgorithm: c.keyAlgorithm,
      keySize: c.keySize,
      keyCurve: c.keyCurve,
      signatureAlgorithm: c.signatureAlgorithm,
      keyUsage: c.keyUsage,
      eku: c.extendedKeyUsage,
      ocsp: c.ocspUrls,
      caIssuers: c.caIssuersUrls,
      crl: c.crlDistributionPoints,
      ski: c.subjectKeyId,
      aki: c.authorityKeyId,
      isCa: c.isCa,
      pathLength: c.pathLength,
      selfSigned: c.selfSigned,
    }));
    const inserted = await transaction.query<{ fingerprint: string }[]>(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, subject_dn_hash, issuer_dn_hash,
              common_name, subject_organization, subject_organizational_unit, issuer_common_name, issuer_organization, sans, dns_names, search_text,
              not_before, not_after, key_algorithm, key_size, key_curve, signature_algorithm, key_usage, extended_key_usage, ocsp_urls,
              ca_issuers_urls, crl_distribution_points, subject_key_id, authority_key_id, is_ca, path_length, self_signed)
       SELECT r.fingerprint, r.sha1, decode(r.der, 'hex'), r.serial, r.subject, r.issuer, r."subjectDnHash", r."issuerDnHash",
              r.cn, r.o, r.ou, r."issuerCn", r."issuerO", r.sans, r."dnsNames", r."searchText",
              r."notBefore", r."notAfter", r."keyAlgorithm", r."keySize", r."keyCurve", r."signatureAlgorithm", r."keyUsage", r.eku, r.ocsp,
              r."caIssuers", r.crl, r.ski, r.aki, r."isCa", r."pathLength", r."selfSigned"
         FROM jsonb_to_recordset($1::jsonb) AS r(fingerprint text, sha1 text, der text, serial text, subject text, issuer text,
              "subjectDnHash" text, "issuerDnHash" text, cn text, o text, ou text, "issuerCn" text, "issuerO" text, sans text[],
              "dnsNames" text[], "searchText" text, "notBefore" timestamptz, "notAfter" timestamptz, "keyAlgorithm" text, "keySize" integer, "keyCurve" text,
              "signatureAlgorithm" text, "keyUsage" text[], eku text[], ocsp text[], "caIssuers" text[], crl text[], ski text, aki text,
              "isCa" boolean, "pathLength" integer, "selfSigned" boolean)
       ON CONFLICT (fingerprint) DO NOTHING
       RETURNING fingerprint`,
      [JSON.stringify(rows)],
    );
    return new Set(inserted.map((row) => row.fingerprint));
  }

  findByFingerprint(fingerprint: string): Promise<CertificateEntity | null> {
    return this.dataSource.getRepository(CertificateEntity).findOneBy({ fingerprint });
  }

  async findSummaries(fingerprints: string[]): Promise<CertificateSummary[]> {
    if (fingerprints.length === 0) return [];
    return this.dataSource.query<CertificateSummary[]>(
      `SELECT ${SUMMARY_COLUMNS} FROM certificates c WHERE c.fingerprint = ANY($1::text[])`,
      [fingerprints],
    );
  }

  /** The stored certificate whose subject is this one's issuer (and whose key id matches its AKI), if any. */
  async findIssuerFingerprint(certificate: CertificateEntity): Promise<string | null> {
    const params = new Params();
    const nameMatch = certificate.issuerDnHash
      ? `c.subject_dn_hash = ${params.add(certificate.issuerDnHash)}`
      : `c.subject = ${params.add(certificate.issuer)}`;
    const keyMatch = certificate.authorityKeyId ? ` AND c.subject_key_id = ${params.add(certificate.authorityKeyId)}` : '';
    const rows = await this.dataSource.query<{ fingerprint: string }[]>(
      `SELECT c.fingerprint FROM certificates c WHERE ${nameMatch}${keyMatch} ORDER BY c.not_after DESC LIMIT 1`,
      params.values,
    );
    return rows[0]?.fingerprint ?? null;
  }

  /** One window of the certificate list, each row to `onRow` as it arrives; resolves to the number of all matches. */
  readPage(filter: CertificateFilter, onRow: (row: CertificateSummary) => void): Promise<number> {
    const { select, count } = this.listQueries(filter);
    return this.readWindow(select, count, filter, onRow);
  }

  /** Every certificate the list filters match, in the list's order, for an export. */
  streamMatching(criteria: CertificateCriteria): Promise<RowStream<CertificateSummary>> {
    return openRowStream(this.dataSource, this.listQueries(criteria).select);
  }

  private listQueries(criteria: CertificateCriteria): { select: SqlQuery; count: SqlQuery } {
    const params = new Params();
    const conditions: string[] = [];
    if (criteria.q) conditions.push(this.matchesText(criteria.q, params));
    if (criteria.isCa !== undefined) conditions.push(`c.is_ca = ${params.add(criteria.isCa)}`);
    if (criteria.selfSigned !== undefined) conditions.push(`c.self_signed = ${params.add(criteria.selfSigned)}`);
    if (criteria.expired !== undefined) conditions.push(`c.not_after ${criteria.expired ? '<=' : '>'} ${params.add(criteria.now)}`);
    if (criteria.inUse !== undefined) {
      const current = 'EXISTS (SELECT 1 FROM endpoint_certificates l WHERE l.fingerprint = c.fingerprint AND l.is_current)';
      conditions.push(criteria.inUse ? current : `NOT ${current}`);
    }
    if (criteria.anchors === false) conditions.push('NOT c.is_trust_anchor');
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    return {
      select: { text: `SELECT ${SUMMARY_COLUMNS} FROM certificates c ${where} ORDER BY c.not_after, c.fingerprint`, values: params.values },
      count: { text: `SELECT count(*)::int AS total FROM certificates c ${where}`, values: params.values },
    };
  }

  /**
   * Certificates whose fingerprint starts with `q` or whose common name or SANs contain it, by
   * common name. Counted first: how many match decides how the page is found (searchSortKey).
   */
  async searchPage(q: string, window: { limit: number; offset: number }): Promise<{ rows: CertificateSummary[]; total: number }> {
    const params = new Params();
    const where = `WHERE ${this.matchesText(q, params)}`;
    const count = { text: `SELECT count(*)::int AS total FROM certificates c ${where}`, values: params.values };
    const total = await this.countOf(count, ['certificates']);
    const order = `${searchSortKey('c.common_name', total)} NULLS LAST, c.fingerprint`;
    const page = windowOf(
      { text: `SELECT ${SUMMARY_COLUMNS} FROM certificates c ${where} ORDER BY ${order}`, values: params.values },
      window,
    );
    return { rows: await this.dataSource.query<CertificateSummary[]>(page.text, page.values), total };
  }

  /**
   * One window of current links with their endpoint and certificate, soonest expiry first, each row
   * to `onRow` as it arrives; resolves to the number of all matches.
   */
  readActivePage(filter: ActiveFilter, onRow: (row: ActiveLinkRow) => void): Promise<number> {
    const { select, count, countedTables } = this.activeQueries(filter);
    return this.readWindow(select, count, filter, onRow, countedTables);
  }

  /** Every current link the active (or expiring) filters match, soonest expiry first, for an export. */
  streamActive(criteria: ActiveCriteria): Promise<RowStream<ActiveLinkRow>> {
    return openRowStream(this.dataSource, this.activeQueries(criteria).select);
  }

  private activeQueries(criteria: ActiveCriteria): { select: SqlQuery; count: SqlQuery; countedTables?: CountedTable[] } {
    const params = new Params();
    const conditions = ['l.is_current'];
    if (criteria.notAfterBefore) conditions.push(`l.not_after < ${params.add(criteria.notAfterBefore)}`);
    if (criteria.certUse) conditions.push(`l.cert_use = ${params.add(criteria.certUse)}`);
    if (criteria.type) conditions.push(`e.type = ${params.add(criteria.type)}`);
    if (criteria.tags?.length) conditions.push(`e.tags && ${params.add(criteria.tags)}::text[]`);
    const where = `WHERE ${conditions.join(' AND ')}`;
    const from = 'FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id';
    // Counting needs the endpoints only to filter by them; without such a filter the partial index answers alone.
    const byEndpoint = Boolean(criteria.type || criteria.tags?.length);
    const countFrom = byEndpoint ? from : 'FROM endpoint_certificates l';
    const countValues = [...params.values];
    // The active list's count reads only counted columns (the links' currency and use, the
    // endpoints' type and tags) and comes from the count cache; the expiring list's depends on the
    // clock, which nothing notifies, and is counted every time.
    const countedTables: CountedTable[] | undefined = criteria.notAfterBefore
      ? undefined
      : byEndpoint
        ? ['endpoint_certificates', 'endpoints']
        : ['endpoint_certificates'];
    return {
      select: {
        text: `SELECT l.endpoint_id AS "endpointId", e.name AS "endpointName", e.type AS "endpointType", e.tags AS "endpointTags",
              l.cert_use AS "certUse",
                      c.fingerprint, c.common_name AS "commonName", c.sans, c.issuer_common_name AS "issuerCommonName",
                      c.not_before AS "notBefore", c.not_after AS "notAfter", l.first_seen_at AS "firstSeenAt", l.last_seen_at AS "lastSeenAt",
                      ${supersededByColumns()}
                 ${from} JOIN certificates c ON c.fingerprint = l.fingerprint
                 ${storedSupersededByJoin('l')}
                 ${where} ORDER BY l.not_after, l.id`,
        values: params.values,
      },
      count: { text: `SELECT count(*)::int AS total ${countFrom} ${where}`, values: countValues },
      countedTables,
    };
  }

  /** Every criterion given must match. */
  lookup(criteria: LookupCriteria): Promise<CertificateSummary[]> {
    const params = new Params();
    const conditions: string[] = [];
    if (criteria.sha256) conditions.push(`c.fingerprint = ${params.add(criteria.sha256)}`);
    if (criteria.sha1) conditions.push(`c.sha1_fingerprint = ${params.add(criteria.sha1)}`);
    if (criteria.serialNumber) conditions.push(`c.serial_number = ${params.add(criteria.serialNumber)}`);
    if (criteria.hostnameCandidates) {
      const candidates = params.add(criteria.hostnameCandidates);
      conditions.push(`(c.sans && ${candidates}::text[] OR lower(c.common_name) = ANY(${candidates}::text[]))`);
    }
    return this.dataSource.query<CertificateSummary[]>(
      `SELECT ${SUMMARY_COLUMNS} FROM certificates c WHERE ${conditions.join(' AND ')} ORDER BY c.not_after DESC LIMIT 1000`,
      params.values,
    );
  }

  async delete(fingerprint: string, transaction: Transaction): Promise<void> {
    await transaction.query('DELETE FROM certificates WHERE fingerprint = $1', [fingerprint]);
  }

  async lockForDelete(fingerprint: string, transaction: Transaction): Promise<boolean> {
    const rows = await transaction.query<unknown[]>('SELECT 1 FROM certificates WHERE fingerprint = $1 FOR UPDATE', [fingerprint]);
    return rows.length > 0;
  }

  private matchesText(q: string, params: Params): string {
    const text = `c.search_text LIKE ${params.add(`%${escapeLike(q.toLowerCase())}%`)}`;
    const hex = q.replace(/:/g, '').toLowerCase();
    return /^[0-9a-f]{2,64}$/.test(hex) ? `(${text} OR c.fingerprint LIKE ${params.add(`${hex}%`)})` : text;
  }

  /**
   * One window of `select` (which must not be paged yet), each row to `onRow` as it arrives and none
   * kept (database/pool.ts), and the number of all its rows (from the count cache with `countedTables`).
   */
  private async readWindow<T>(
    select: SqlQuery,
    count: SqlQuery,
    window: { limit: number; offset: number },
    onRow: (row: T) => void,
    countedTables?: CountedTable[],
  ): Promise<number> {
    const [, total] = await Promise.all([forEachRow(this.dataSource, windowOf(select, window), onRow), this.countOf(count, countedTables)]);
    return total;
  }

  /** A count that reads only counted columns of `countedTables` (and no clock) comes from the count cache. */
  private async countOf(count: SqlQuery, countedTables?: CountedTable[]): Promise<number> {
    if (countedTables) return this.counts.count(count, countedTables);
    return (await this.dataSource.query<{ total: number }[]>(count.text, count.values))[0].total;
  }
}

/** `select` limited to the window, its placeholders numbered after the query's own. */
function windowOf(select: SqlQuery, window: { limit: number; offset: number }): SqlQuery {
  const values = [...select.values, window.limit, window.offset];
  return { text: `${select.text} LIMIT $${values.length - 1} OFFSET $${values.length}`, values };
}
