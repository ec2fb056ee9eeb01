import { lifetimeDays } from '../lifetime-thresholds';

/**
 * What changed when an endpoint's current certificate was replaced (docs/api-contract.md section
 * 16): the compared fields, and which changes are regressions.
 */

export const ROTATION_FIELDS = [
  'issuer',
  'trustedBy',
  'chainComplete',
  'keyAlgorithm',
  'keySize',
  'signatureAlgorithm',
  'sans',
  'extendedKeyUsage',
  'lifetimeDays',
] as const;
export type RotationField = (typeof ROTATION_FIELDS)[number];

/** A compared field that got worse, or `rollback`: the new certificate was issued before the old one. */
export type Regression = RotationField | 'rollback';

/** A compared value; set-valued fields are sorted arrays. */
export type RotationValue = string | number | boolean | string[] | null;

export interface RotationChange {
  field: RotationField;
  from: RotationValue;
  to: RotationValue;
}

/** The facts a rotation compares, of one side. */
export interface RotatedCertificate {
  issuer: string;
  trustedBy: readonly string[];
  /** Whether the chain the endpoint presented with it was complete; null when unknown (not a handshake). */
  chainComplete: boolean | null;
  keyAlgorithm: string;
  keySize: number | null;
  signatureAlgorithm: string;
  sans: readonly string[];
  extendedKeyUsage: readonly string[];
  notBefore: Date;
  notAfter: Date;
}

export interface RotationComparison {
  changes: RotationChange[];
  regressions: Regression[];
}

/** Whole days from notBefore to notAfter, rounded: a 90-day certificate ending a second early is 90. */
export function wholeLifetimeDays(certificate: Pick<RotatedCertificate, 'notBefore' | 'notAfter'>): number {
  return Math.round(lifetimeDays(certificate.notBefore, certificate.notAfter));
}

/** SHA-1 and MD5 signatures, whatever the key algorithm's spelling ('sha1WithRSAEncryption', 'ecdsa-with-SHA1'). */
export function isWeakSignature(signatureAlgorithm: string): boolean {
  return /sha-?1(?!\d)|md5/i.test(signatureAlgorithm);
}

/**
 * Every compared field that differs (in ROTATION_FIELDS order) and the regressions among them,
 * `rollback` last. A set-valued field compares as a set: the same names in another order are no change.
 * `chainComplete` compares only when both sides are known.
 */
export function compareRotation(from: RotatedCertificate, to: RotatedCertificate): RotationComparison {
  const before = comparedValues(from);
  const after = comparedValues(to);
  // Completeness is known only for a chain a handshake presented: an upload's unknown is no change.
  const compared = ROTATION_FIELDS.filter(
    (field) => field !== 'chainComplete' || (from.chainComplete !== null && to.chainComplete !== null),
  );
  const changes = compared
    .filter((field) => !sameValue(before[field], after[field]))
    .map((field) => ({
      field,
      from: before[field],
      to: after[field],
    }));
  const regressed = new Set<Regression>();
  const lost = (a: readonly string[], b: readonly string[]) => {
    const kept = new Set(b.map((value) => value.toLowerCase()));
    return a.some((value) => !kept.has(value.toLowerCase()));
  };
  if (lost(from.sans, to.sans)) regressed.add('sans');
  if (lost(from.extendedKeyUsage, to.extendedKeyUsage)) regressed.add('extendedKeyUsage');
  if (lost(from.trustedBy, to.trustedBy)) regressed.add('trustedBy');
  if (from.chainComplete === true && to.chainComplete === false) regressed.add('chainComplete');
  // Another algorithm is a change of kind, not of strength: only a smaller key of the same algorithm regresses.
  if (from.keyAlgorithm === to.keyAlgorithm && from.keySize !== null && to.keySize !== null && to.keySize < from.keySize)
    regressed.add('keySize');
  if (isWeakSignature(to.signatureAlgorithm) && !isWeakSignature(from.signatureAlgorithm)) regressed.add('signatureAlgorithm');
  if (to.notBefore.getTime() < from.notBefore.getTime()) regressed.add('rollback');
  const regressions = [...ROTATION_FIELDS, 'rollback' as const].filter((field) => regressed.has(field));
  return { changes, regressions };
}

function comparedValues(certificate: RotatedCertificate): Record<RotationField, RotationValue> {
  const sorted = (values: readonly string[]) => [...values].sort();
  return {
    issuer: certificate.issuer,
    trustedBy: sorted(certificate.trustedBy),
    chainComplete: certificate.chainComplete,
    keyAlgorithm: certificate.keyAlgorithm,
    keySize: certificate.keySize,
    signatureAlgorithm: certificate.signatureAlgorithm,
    sans: sorted(certificate.sans),
    extendedKeyUsage: sorted(certificate.extendedKeyUsage),
    lifetimeDays: wholeLifetimeDays(certificate),
  };
}

function sameValue(a: RotationValue, b: RotationValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((value, index) => value === b[index]);
  return a === b;
}
