// Everything that is wrong with an endpoint, not only its date (docs/api-contract.md section 18).

export const FINDING_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** In the order the contract's table lists them, which is also the order within one severity. */
export const FINDING_CODES = [
  'expired',
  'not_yet_valid',
  'revoked',
  'hostname_mismatch',
  'scan_failing',
  'untrusted',
  'chain_incomplete',
  'self_signed',
  'weak_key',
  'weak_signature',
  'legacy_protocol',
  'weak_cipher',
  'renewal_overdue',
  'renewal_not_deployed',
  'long_validity',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export interface Finding {
  code: FindingCode;
  severity: FindingSeverity;
  /** One sentence an operator can act on. */
  message: string;
}

/** Each code's severity and the sentence shown with it. */
export const FINDING_DEFINITIONS: Readonly<Record<FindingCode, { severity: FindingSeverity; message: string }>> = Object.freeze({
  expired: { severity: 'critical', message: 'A certificate in use has expired: deploy a renewed certificate.' },
  not_yet_valid: {
    severity: 'critical',
    message:
      'A certificate in use is not valid yet: clients reject it until its start date, so check the issuing clock or deploy the previous one.',
  },
  revoked: { severity: 'critical', message: 'Its issuer has revoked a certificate in use: replace it with a newly issued certificate.' },
  hostname_mismatch: {
    severity: 'critical',
    message: 'The certificate does not cover the endpoint’s DNS name: issue one whose names include it.',
  },
  scan_failing: {
    severity: 'critical',
    message: 'Scans of this endpoint are failing: see the last scan error and check the server is reachable.',
  },
  untrusted: {
    severity: 'warning',
    message: 'No public root store trusts the certificate: clients without your own CA installed reject it.',
  },
  chain_incomplete: {
    severity: 'warning',
    message: 'The server does not send the intermediate certificates in order: configure the full chain.',
  },
  self_signed: { severity: 'warning', message: 'The certificate is self-signed: replace it with one issued by a trusted CA.' },
  weak_key: {
    severity: 'warning',
    message: 'A certificate in use has a weak key (RSA under 2048 or EC under 256 bits): reissue it with a stronger key.',
  },
  weak_signature: {
    severity: 'warning',
    message: 'The certificate or an intermediate the server sends is signed with SHA-1 or MD5: reissue it or update the chain.',
  },
  legacy_protocol: {
    severity: 'warning',
    message: 'The server accepts SSL 3.0, TLS 1.0 or TLS 1.1: turn these protocol versions off.',
  },
  weak_cipher: {
    severity: 'warning',
    message: 'The server accepts NULL, anonymous, export, RC4, DES or 3DES cipher suites: remove them from its configuration.',
  },
  renewal_overdue: { severity: 'warning', message: 'The certificate is past the point where it should have been renewed: renew it now.' },
  renewal_not_deployed: {
    severity: 'warning',
    message: 'A renewed certificate exists but the endpoint still serves the old one: deploy the renewal.',
  },
  long_validity: {
    severity: 'info',
    message:
      'The publicly trusted certificate is valid longer than the CA/Browser Forum allows for its issue date: expect browsers to reject it.',
  },
});

export function isFindingCode(value: string): value is FindingCode {
  return (FINDING_CODES as readonly string[]).includes(value);
}

const SEVERITY_RANK: Record<FindingSeverity, number> = { critical: 0, warning: 1, info: 2 };

/** The codes as findings, critical first and otherwise in the table's order, each once. */
export function describeFindings(codes: readonly string[]): Finding[] {
  const known = FINDING_CODES.filter((code) => codes.includes(code));
  return known
    .map((code) => ({ code, ...FINDING_DEFINITIONS[code] }))
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
}
