import type { Schemas } from '../../api/client';

type Finding = Schemas['FindingDto'];
export type FindingCode = Finding['code'];

/** What each finding code is called on screen (docs/api-contract.md section 18). */
export const FINDING_LABELS: Record<FindingCode, string> = {
  expired: 'Expired',
  not_yet_valid: 'Not yet valid',
  revoked: 'Revoked',
  hostname_mismatch: 'Wrong host name',
  scan_failing: 'Scans failing',
  untrusted: 'Untrusted',
  chain_incomplete: 'Incomplete chain',
  self_signed: 'Self-signed',
  weak_key: 'Weak key',
  weak_signature: 'Weak signature',
  legacy_protocol: 'Legacy protocol',
  weak_cipher: 'Weak cipher',
  renewal_overdue: 'Renewal overdue',
  renewal_not_deployed: 'Renewal not deployed',
  long_validity: 'Long validity',
};

/** Every code, in the API's order (critical first). */
export const FINDING_CODES = Object.keys(FINDING_LABELS) as FindingCode[];

const SEVERITY_CLASS: Record<Finding['severity'], string> = {
  critical: 'urgency urgency-critical',
  warning: 'urgency urgency-warning',
  info: 'muted',
};

/** An endpoint's findings in a list row: each by name, critical first (the API's order), its sentence on hover. */
export function FindingBadges({ findings }: { findings: Finding[] }) {
  if (findings.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="finding-badges">
      {findings.map((finding) => (
        <li key={finding.code} className={SEVERITY_CLASS[finding.severity]} title={finding.message}>
          {FINDING_LABELS[finding.code]}
        </li>
      ))}
    </ul>
  );
}

/** An endpoint's findings on its screen: each with its severity and the sentence saying what to do. */
export function EndpointFindings({ findings, ignored }: { findings: Finding[]; ignored: FindingCode[] }) {
  return (
    <section aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings</h2>
      {findings.length === 0 ? (
        <p className="muted">Nothing wrong found.</p>
      ) : (
        <ul className="findings">
          {findings.map((finding) => (
            <li key={finding.code}>
              <span className={SEVERITY_CLASS[finding.severity]}>
                {FINDING_LABELS[finding.code]} ({finding.severity})
              </span>{' '}
              {finding.message}
            </li>
          ))}
        </ul>
      )}
      {ignored.length > 0 && <p className="muted">Ignored for this endpoint: {ignored.map((code) => FINDING_LABELS[code]).join(', ')}.</p>}
    </section>
  );
}
