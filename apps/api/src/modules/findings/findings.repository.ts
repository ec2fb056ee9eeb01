import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import type { EndpointType } from '../endpoints/endpoint.entity';
import { inSubscriptionScope } from '../expiry/subscription-scope';
import type { FindingCertificate, FindingInputs } from '@certkeeper/domain';

/** An endpoint's findings inputs as stored, with what it shows now. */
export interface StoredFindingInputs extends FindingInputs {
  endpointId: string;
  codes: string[];
  ignored: string[];
}

/** A row of the dashboard's findingEndpoints panel. */
export interface FindingEndpointRow {
  id: string;
  name: string;
  type: EndpointType;
  codes: string[];
}

/** A current certificate's own facts, read once however many endpoints show it. */
type CertificateFacts = Omit<FindingCertificate, 'isLeaf' | 'notBefore' | 'notAfter'> & {
  fingerprint: string;
  notBefore: string;
  notAfter: string;
  /** Whether the renewal window its CA published has ended (section 15). */
  renewalWindowEnded: boolean;
};

/** An endpoint's own inputs, and its current links as [fingerprint, isLeaf, keeps a renewal not deployed]. */
type EndpointInputRow = Omit<StoredFindingInputs, 'currentCertificates' | 'renewal' | 'errorSince'> & {
  errorSince: string | null;
  links: [string, boolean, boolean][];
};

@Injectable()
export class FindingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * What the findings of these endpoints are computed from, in one statement: endpoint, current
   * links, latest scan and profile, and each current certificate's facts once however many of
   * the endpoints show it (a fleet behind one certificate reads it once), with its revocation and
   * whether its CA's renewal window has ended. The renewal facts (docs/api-contract.md sections
   * 15 and 16): a current certificate whose renewal window has ended (while renewal information
   * is used, `rule.renewalInfo`), or a current link keeping a stored renewal not deployed, as the
   * lists read it.
   */
  async loadInputs(
    endpointIds: readonly string[],
    rule: { now: Date; renewalInfo: boolean },
    transaction?: Transaction,
  ): Promise<StoredFindingInputs[]> {
    if (endpointIds.length === 0) return [];
    const [row] = await (transaction ?? this.dataSource.manager).query<
      { endpoints: EndpointInputRow[]; certificates: CertificateFacts[] }[]
    >(
      `WITH links AS (
         SELECT l.endpoint_id, l.fingerprint, l.cert_use = 'tls' AS is_leaf, l.superseded_by IS NOT NULL AS superseded
           FROM endpoint_certificates l
          WHERE l.endpoint_id = ANY($1::uuid[]) AND l.is_current
       ), linked AS (
         SELECT endpoint_id, json_agg(json_build_array(fingerprint, is_leaf, superseded)) AS links FROM links GROUP BY endpoint_id
       )
       SELECT coalesce((
                SELECT json_agg(json_build_object(
                         'endpointId', e.id, 'type', e.type, 'dnsName', e.dns_name, 'errorSince', e.error_since,
                         'codes', coalesce(f.codes, '{}'), 'ignored', coalesce(f.ignored, '{}'),
                         'chainComplete', CASE WHEN e.type = 'host' THEN f.presented_chain_complete END,
                         'tlsVersions', coalesce(p.versions, '[]'::jsonb),
                         -- The intermediates the server sent: a root it sent too is trusted by itself, whatever signs it.
                         'presentedIntermediateSignatures', coalesce((
                           SELECT array_agg(c.signature_algorithm)
                             FROM unnest(f.presented_chain[2:]) AS presented(fingerprint)
                             JOIN certificates c ON c.fingerprint = presented.fingerprint
                            WHERE NOT c.self_signed), '{}'),
                         'links', coalesce(k.links, '[]')))
                  FROM endpoints e
                  LEFT JOIN endpoint_findings f ON f.endpoint_id = e.id
                  LEFT JOIN endpoint_tls_profiles p ON p.endpoint_id = e.id AND e.type = 'host'
                  LEFT JOIN linked k ON k.endpoint_id = e.id
                 WHERE e.id = ANY($1::uuid[])), '[]') AS endpoints,
              coalesce((
                SELECT json_agg(json_build_object(
                         'fingerprint', c.fingerprint, 'commonName', c.common_name, 'sans', c.sans,
                         'notBefore', c.not_before, 'notAfter', c.not_after, 'keyAlgorithm', c.key_algorithm, 'keySize', c.key_size,
                         'signatureAlgorithm', c.signature_algorithm, 'selfSigned', c.self_signed, 'trustedBy', c.trusted_by,
                         'revocationStatus', r.status,
                         'renewalWindowEnded', EXISTS (SELECT 1 FROM renewal_info ri WHERE ri.fingerprint = c.fingerprint AND ri.window_end <= $2)))
                  FROM certificates c
                  LEFT JOIN certificate_revocations r ON r.fingerprint = c.fingerprint
                 WHERE c.fingerprint IN (SELECT fingerprint FROM links)), '[]') AS certificates`,
      [endpointIds, rule.now],
    );
    const facts = new Map<string, Omit<FindingCertificate, 'isLeaf'>>();
    const windowEnded = new Set<string>();
    for (const { fingerprint, renewalWindowEnded, notBefore, notAfter, ...own } of row.certificates) {
      facts.set(fingerprint, { ...own, notBefore: new Date(notBefore), notAfter: new Date(notAfter) });
      if (renewalWindowEnded) windowEnded.add(fingerprint);
    }
    // One object per certificate and role, shared by every endpoint showing it so: evaluation only reads it.
    const shownAs = { leaf: new Map<string, FindingCertificate>(), other: new Map<string, FindingCertificate>() };
    const shown = (fingerprint: string, isLeaf: boolean): FindingCertificate => {
      const kept = isLeaf ? shownAs.leaf : shownAs.other;
      let certificate = kept.get(fingerprint);
      if (!certificate) kept.set(fingerprint, (certificate = { ...facts.get(fingerprint)!, isLeaf }));
      return certificate;
    };
    // Field by field: a rest and a spread of each row made objects V8 keeps as dictionaries, about
    // 1.8 kB each, and a rotating post reads hundreds.
    return row.endpoints.map((endpoint) => ({
      endpointId: endpoint.endpointId,
      type: endpoint.type,
      dnsName: endpoint.dnsName,
      errorSince: endpoint.errorSince === null ? null : new Date(endpoint.errorSince),
      codes: endpoint.codes,
      ignored: endpoint.ignored,
      chainComplete: endpoint.chainComplete,
      tlsVersions: endpoint.tlsVersions,
      presentedIntermediateSignatures: endpoint.presentedIntermediateSignatures,
      currentCertificates: endpoint.links.map(([fingerprint, isLeaf]) => shown(fingerprint, isLeaf)),
      renewal: {
        renewalOverdue: rule.renewalInfo && endpoint.links.some(([fingerprint]) => windowEnded.has(fingerprint)),
        renewalNotDeployed: endpoint.links.some(([, , superseded]) => superseded),
      },
    }));
  }

  /** Endpoint ids after `afterId` in id order, a page at a time, for a pass over every endpoint. */
  async endpointIdsAfter(afterId: string | null, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      'SELECT id FROM endpoints WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2',
      [afterId, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The endpoints on which any of these certificates is current. */
  async endpointIdsShowing(fingerprints: readonly string[]): Promise<string[]> {
    if (fingerprints.length === 0) return [];
    const rows = await this.dataSource.query<{ id: string }[]>(
      'SELECT DISTINCT endpoint_id AS id FROM endpoint_certificates WHERE is_current AND fingerprint = ANY($1::text[])',
      [fingerprints],
    );
    return rows.map((row) => row.id);
  }

  /** Stores the codes each endpoint shows now. */
  async saveCodes(rows: { endpointId: string; codes: string[] }[], at: Date, transaction?: Transaction): Promise<void> {
    if (rows.length === 0) return;
    await (transaction ?? this.dataSource.manager).query(
      `INSERT INTO endpoint_findings AS f (endpoint_id, codes, computed_at)
       SELECT r."endpointId", ARRAY(SELECT jsonb_array_elements_text(r.codes)), $2
         FROM jsonb_to_recordset($1::jsonb) AS r("endpointId" uuid, codes jsonb)
         JOIN endpoints e ON e.id = r."endpointId"
       ON CONFLICT (endpoint_id) DO UPDATE SET codes = EXCLUDED.codes, computed_at = EXCLUDED.computed_at`,
      [JSON.stringify(rows), at],
    );
  }

  /** Replaces the codes these endpoints ignore, creating the rows that are missing (their findings are recomputed after). */
  async saveIgnored(rows: { endpointId: string; ignored: string[] }[], transaction: Transaction): Promise<void> {
    if (rows.length === 0) return;
    await transaction.query(
      `INSERT INTO endpoint_findings AS f (endpoint_id, ignored)
       SELECT r."endpointId", ARRAY(SELECT jsonb_array_elements_text(r.ignored))
         FROM jsonb_to_recordset($1::jsonb) AS r("endpointId" uuid, ignored jsonb)
       ON CONFLICT (endpoint_id) DO UPDATE SET ignored = EXCLUDED.ignored`,
      [JSON.stringify(rows)],
    );
  }

  /**
   * host: the chain each endpoint's latest successful scan presented, leaf first, and whether it
   * was complete; a row showing the same is left unwritten. Answers the endpoints whose chain or
   * its completeness changed.
   */
  async savePresentedChains(
    rows: { endpointId: string; fingerprints: string[]; complete: boolean }[],
    transaction: Transaction,
  ): Promise<string[]> {
    if (rows.length === 0) return [];
    const changed = await transaction.query<{ endpointId: string }[]>(
      `INSERT INTO endpoint_findings AS f (endpoint_id, presented_chain, presented_chain_complete)
       SELECT r."endpointId", string_to_array(r.chain, ' '), r.complete
         FROM unnest($1::uuid[], $2::text[], $3::boolean[]) AS r("endpointId", chain, complete)
       ON CONFLICT (endpoint_id) DO UPDATE
          SET presented_chain = EXCLUDED.presented_chain, presented_chain_complete = EXCLUDED.presented_chain_complete
        WHERE (f.presented_chain, f.presented_chain_complete) IS DISTINCT FROM (EXCLUDED.presented_chain, EXCLUDED.presented_chain_complete)
       RETURNING f.endpoint_id AS "endpointId"`,
      [rows.map((row) => row.endpointId), rows.map((row) => row.fingerprints.join(' ')), rows.map((row) => row.complete)],
    );
    return changed.map((row) => row.endpointId);
  }

  /** Endpoints in scope showing each code: the dashboard's counts.findings. */
  async countByCode(subscriptions: readonly string[]): Promise<Record<string, number>> {
    const rows = await this.dataSource.query<{ code: string; endpoints: number }[]>(
      `SELECT code, count(*)::int AS endpoints
         FROM endpoint_findings f
         JOIN endpoints e ON e.id = f.endpoint_id
         CROSS JOIN LATERAL unnest(f.codes) AS code
        WHERE ${inSubscriptionScope('e', '$1')}
        GROUP BY code`,
      [subscriptions],
    );
    return Object.fromEntries(rows.map((row) => [row.code, row.endpoints]));
  }

  /** Endpoints in scope showing a finding: those with a critical one first, then by how many they show, then by name. */
  findEndpointsWithFindings(
    subscriptions: readonly string[],
    criticalCodes: readonly string[],
    limit: number,
  ): Promise<FindingEndpointRow[]> {
    return this.dataSource.query<FindingEndpointRow[]>(
      `SELECT e.id, e.name, e.type, f.codes
         FROM endpoint_findings f
         JOIN endpoints e ON e.id = f.endpoint_id
        WHERE f.codes <> '{}' AND ${inSubscriptionScope('e', '$1')}
        ORDER BY f.codes && $2::text[] DESC, cardinality(f.codes) DESC, e.name COLLATE certkeeper_natural, e.id
        LIMIT $3`,
      [subscriptions, criticalCodes, limit],
    );
  }
}
