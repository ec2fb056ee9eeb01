import type { TlsVersionSupport } from '../scanner-protocol';
import { certificateCoversHostname } from '../x509/hostname';
import type { FindingCode } from './finding-codes';

/** What findings read of one certificate (stored columns of `certificates`). */
export interface FindingCertificate {
  commonName: string | null;
  sans: string[];
  notBefore: Date;
  notAfter: Date;
  keyAlgorithm: string;
  keySize: number | null;
  signatureAlgorithm: string;
  selfSigned: boolean;
  trustedBy: string[];
  /** The `tls` link of a host endpoint: the leaf its server presents. */
  isLeaf: boolean;
  revocationStatus: 'good' | 'revoked' | 'unknown' | null;
}

/** Everything the findings of one endpoint are computed from (docs/api-contract.md section 18). */
export interface FindingInputs {
  type: 'host' | 'saml' | 'manual';
  dnsName: string | null;
  errorSince: Date | null;
  currentCertificates: FindingCertificate[];
  /** host: whether the chain presented at the latest successful scan was complete; null when unknown. */
  chainComplete: boolean | null;
  /** host: the signature algorithms of the intermediates the server presented at its latest successful scan. */
  presentedIntermediateSignatures: string[];
  /** host: the latest TLS profile's versions; empty when never profiled. */
  tlsVersions: TlsVersionSupport[];
  /** The codes the renewal features decide (sections 15 and 16); see renewalFindings. */
  renewal: RenewalFindingFacts;
}

/**
 * The seam of the two renewal findings: the features that know whether a renewal is overdue
 * (lifetime-aware alerts, section 15) and whether a stored renewal was never deployed (section
 * 16) decide these facts, read with the rest of an endpoint's inputs.
 */
export interface RenewalFindingFacts {
  renewalOverdue: boolean;
  renewalNotDeployed: boolean;
}

export function renewalFindings(facts: RenewalFindingFacts): FindingCode[] {
  const codes: FindingCode[] = [];
  if (facts.renewalOverdue) codes.push('renewal_overdue');
  if (facts.renewalNotDeployed) codes.push('renewal_not_deployed');
  return codes;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The CA/Browser Forum's longest validity of a publicly trusted TLS certificate by its notBefore,
 * newest rule first (Baseline Requirements 6.3.2).
 */
const VALIDITY_LIMITS: readonly { from: Date; days: number }[] = [
  { from: new Date('2029-03-15T00:00:00Z'), days: 47 },
  { from: new Date('2027-03-15T00:00:00Z'), days: 100 },
  { from: new Date('2026-03-15T00:00:00Z'), days: 200 },
  { from: new Date('2020-09-01T00:00:00Z'), days: 398 },
  { from: new Date('2018-03-01T00:00:00Z'), days: 825 },
];

const LEGACY_VERSIONS = new Set(['SSLv3', 'TLSv1.0', 'TLSv1.1']);
// IANA suite names: NULL encryption, anonymous key exchange, export grade, RC4, single DES and 3DES.
const WEAK_SUITE = /(_WITH_NULL_|_anon_|EXPORT|_RC4_|_DES_|_DES40_|_3DES_)/;
const WEAK_SIGNATURE = /^(md2|md5|sha1)With|with-SHA1$/i;

/** The codes that hold for an endpoint now, in the contract table's order. Pure: the API stores them. */
export function evaluateFindings(inputs: FindingInputs, now: Date): FindingCode[] {
  const certificates = inputs.currentCertificates;
  const leaf = inputs.type === 'host' ? (certificates.find((c) => c.isLeaf) ?? null) : null;
  const codes = new Set<FindingCode>();
  if (certificates.some((c) => c.notAfter.getTime() <= now.getTime())) codes.add('expired');
  if (certificates.some((c) => c.notBefore.getTime() > now.getTime())) codes.add('not_yet_valid');
  if (certificates.some((c) => c.revocationStatus === 'revoked')) codes.add('revoked');
  if (leaf && inputs.dnsName && !certificateCoversHostname(leaf, inputs.dnsName)) codes.add('hostname_mismatch');
  if (inputs.errorSince !== null) codes.add('scan_failing');
  if (leaf && leaf.trustedBy.length === 0) codes.add('untrusted');
  if (leaf && inputs.chainComplete === false) codes.add('chain_incomplete');
  if (leaf?.selfSigned) codes.add('self_signed');
  if (certificates.some(hasWeakKey)) codes.add('weak_key');
  const weak = (algorithm: string) => WEAK_SIGNATURE.test(algorithm);
  if (certificates.some((c) => weak(c.signatureAlgorithm)) || (leaf !== null && inputs.presentedIntermediateSignatures.some(weak))) {
    codes.add('weak_signature');
  }
  const accepted = inputs.type === 'host' ? inputs.tlsVersions.filter((v) => v.supported) : [];
  if (accepted.some((v) => LEGACY_VERSIONS.has(v.version))) codes.add('legacy_protocol');
  if (accepted.some((v) => v.cipherSuites.some((suite) => WEAK_SUITE.test(suite)))) codes.add('weak_cipher');
  for (const code of renewalFindings(inputs.renewal)) codes.add(code);
  if (certificates.some(outlivesBaselineLimit)) codes.add('long_validity');
  return [...codes];
}

function hasWeakKey({ keyAlgorithm, keySize }: FindingCertificate): boolean {
  if (keySize === null) return false;
  if (keyAlgorithm === 'RSA') return keySize < 2048;
  if (keyAlgorithm === 'ECDSA') return keySize < 256;
  return false;
}

/** Only publicly trusted leaves: a private CA sets its own rules. */
function outlivesBaselineLimit(certificate: FindingCertificate): boolean {
  if (certificate.trustedBy.length === 0 || certificate.selfSigned) return false;
  const limit = VALIDITY_LIMITS.find(({ from }) => certificate.notBefore.getTime() >= from.getTime());
  return limit !== undefined && certificate.notAfter.getTime() - certificate.notBefore.getTime() > limit.days * DAY_MS;
}
