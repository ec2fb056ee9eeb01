/**
 * Renewed, not deployed (docs/api-contract.md section 16), as SQL every list that shows it shares:
 * a current certificate A (`tls`, on a host endpoint) is superseded by the stored certificate B
 * with the latest notBefore such that B was issued at least an hour after A, is not expired and
 * not revoked, covers every DNS name of A (A has one at least), has A's key algorithm and A's
 * issuer organization (A's issuer DN without one), and was first stored at least
 * `supersededAfterHours` ago. The pairs of certificate and renewal are recorded when a certificate
 * is stored, and each current link keeps the answer (`endpoint_certificates.superseded_by`),
 * brought up to date wherever it can change and hourly for the clock (docs/decisions/0026): the
 * lists read it, a lookup.
 */

/** The rule's inputs: the clock's now and the alert policy's `supersededAfterHours`. */
export interface SupersedingWindow {
  now: Date;
  afterHours: number;
}

/** The renewal superseding a current certificate, as list rows carry it. */
export interface SupersededBy {
  fingerprint: string;
  notBefore: Date;
  firstSeenAt: Date;
}

/** The columns `supersededByColumns` adds to a row, read back by `supersededByOf`. */
export interface SupersededByColumns {
  supersededByFingerprint: string | null;
  supersededByNotBefore: Date | null;
  supersededByFirstSeenAt: Date | null;
}

/**
 * Revocation is not recorded yet: every stored certificate counts as not revoked. The revocation
 * feature replaces this with its own test of `b`.
 */
const notRevoked = (_b: string) => 'true';

/**
 * The timeless half of the rule, between stored certificates `a` and `b`: B issued at least an
 * hour after A, covering A's DNS names (A has one at least), with A's key algorithm and issuer
 * organization (issuer DN without one). Certificates never change, so the pairs it holds for are
 * recorded once, when either is stored (`certificate_renewals`, `recordPairsSql`).
 */
const RENEWS = (a: string, b: string) => `cardinality(${a}.dns_names) > 0 AND ${b}.dns_names @> ${a}.dns_names
     AND ${b}.not_before >= ${a}.not_before + interval '1 hour' AND ${b}.key_algorithm = ${a}.key_algorithm
     AND coalesce(${b}.issuer_organization, ${b}.issuer) = coalesce(${a}.issuer_organization, ${a}.issuer)`;

/**
 * Inserts the pairs (certificate, renewal) that the certificates named by `fingerprints` (a
 * placeholder bound to a text array) take part in, either side; two GIN lookups per certificate.
 */
export function recordPairsSql(fingerprints: string): string {
  // Lateral lookups kept apart (OFFSET 0): as joins, the shared key algorithm and issuer of a large
  // store invite a hash join that reads every certificate.
  return `INSERT INTO certificate_renewals (certificate, renewal)
    SELECT a.fingerprint, renewal.fingerprint FROM certificates a
     CROSS JOIN LATERAL (SELECT b.fingerprint FROM certificates b WHERE ${RENEWS('a', 'b')} OFFSET 0) renewal
     WHERE a.fingerprint = ANY(${fingerprints}::text[])
    UNION
    SELECT renewed.fingerprint, b.fingerprint FROM certificates b
     CROSS JOIN LATERAL (SELECT a.fingerprint FROM certificates a WHERE a.dns_names && b.dns_names AND ${RENEWS('a', 'b')} OFFSET 0) renewed
     WHERE b.fingerprint = ANY(${fingerprints}::text[])
    ON CONFLICT DO NOTHING`;
}

/** The same pairs among every stored certificate, for a benchmark's backfill: a GIN lookup per certificate. */
export const RECORD_ALL_PAIRS_SQL = `INSERT INTO certificate_renewals (certificate, renewal)
  SELECT a.fingerprint, renewal.fingerprint FROM certificates a
   CROSS JOIN LATERAL (SELECT b.fingerprint FROM certificates b WHERE ${RENEWS('a', 'b')} OFFSET 0) renewal
  ON CONFLICT DO NOTHING`;

/**
 * `LEFT JOIN LATERAL ... AS <as>` over a query where `link`, `certificate` and `endpoint` alias the
 * current link, its certificate and its endpoint; `now` and `afterHours` are placeholders bound to
 * the window's values. The recorded pairs leave only the rule's time to check: one index probe
 * per row, nothing more for a certificate without a renewal. The rule asked now: what a link keeps
 * is written from it (`refreshSupersededSql`), and the findings and events ask it.
 */
export function supersededByJoin(refs: {
  link: string;
  certificate: string;
  endpoint: string;
  now: string;
  afterHours: string;
  as?: string;
}): string {
  const { link: l, certificate: a, endpoint: e, now, afterHours } = refs;
  return `LEFT JOIN LATERAL (
      SELECT b.fingerprint, b.not_before, b.created_at
        FROM certificate_renewals r JOIN certificates b ON b.fingerprint = r.renewal
       WHERE ${l}.cert_use = 'tls' AND ${e}.type = 'host' AND r.certificate = ${a}.fingerprint
         AND b.not_after > ${now}::timestamptz
         AND b.created_at <= ${now}::timestamptz - make_interval(hours => ${afterHours}::int)
         AND ${notRevoked('b')}
       ORDER BY b.not_before DESC, b.fingerprint LIMIT 1
    ) ${refs.as ?? 'superseding'} ON true`;
}

/**
 * `LEFT JOIN certificates <as>` on the renewal a current link `link` keeps (`superseded_by`), for a
 * list's columns (`supersededByColumns`): a primary-key lookup per row.
 */
export function storedSupersededByJoin(link: string, as = 'superseding'): string {
  return `LEFT JOIN certificates ${as} ON ${as}.fingerprint = ${link}.superseded_by`;
}

/** The select-list entries of the columns `SupersededByColumns` names, from either join. */
export function supersededByColumns(as = 'superseding'): string {
  return `${as}.fingerprint AS "supersededByFingerprint", ${as}.not_before AS "supersededByNotBefore",
          ${as}.created_at AS "supersededByFirstSeenAt"`;
}

/**
 * Sets `superseded_by` of the current links `where` (a condition on link `l`) selects to what the
 * rule answers at the window (`now`, `afterHours`: placeholders), writing only the links whose
 * answer changed. A link that leaves is cleared where it becomes history (LinksRepository);
 * `t.is_current` is asked of the row as it is when written, so a link retired meanwhile by another
 * transaction stays clear.
 */
export function refreshSupersededSql(where: string, now: string, afterHours: string): string {
  return `UPDATE endpoint_certificates t SET superseded_by = s.fingerprint
    FROM (SELECT l.id, superseding.fingerprint FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
           ${supersededByJoin({ link: 'l', certificate: 'l', endpoint: 'e', now, afterHours })}
          WHERE l.is_current AND (${where})) s
   WHERE t.id = s.id AND t.is_current AND t.superseded_by IS DISTINCT FROM s.fingerprint`;
}

export function supersededByOf(row: SupersededByColumns): SupersededBy | null {
  if (row.supersededByFingerprint === null) return null;
  return { fingerprint: row.supersededByFingerprint, notBefore: row.supersededByNotBefore!, firstSeenAt: row.supersededByFirstSeenAt! };
}
