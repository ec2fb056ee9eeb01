import { ParsedCertificate } from './types';

type IssuedSide = Pick<ParsedCertificate, 'issuer' | 'authorityKeyId' | 'issuerDnHash'>;
type IssuingSide = Pick<ParsedCertificate, 'subject' | 'subjectKeyId' | 'subjectDnHash'>;

/**
 * True when `issuer` plausibly issued `subject`: the subject's issuer name equals the issuer's
 * subject name and, when both are present, the Authority Key Identifier equals the issuer's Subject
 * Key Identifier (which tells apart CAs that share a name, such as a renewed root). Signatures are
 * not verified.
 *
 * Names compare byte for byte through their DER hashes when both sides carry them, as chain
 * builders such as Go's do; values built without hashes fall back to the DN strings, compared
 * case-insensitively with whitespace runs collapsed.
 */
export function isIssuedBy(subject: IssuedSide, issuer: IssuingSide): boolean {
  return namesMatch(subject, issuer) && keyIdentifiersAgree(subject.authorityKeyId, issuer.subjectKeyId);
}

function namesMatch(subject: IssuedSide, issuer: IssuingSide): boolean {
  if (subject.issuerDnHash !== undefined && issuer.subjectDnHash !== undefined) return subject.issuerDnHash === issuer.subjectDnHash;
  return normaliseDn(subject.issuer) === normaliseDn(issuer.subject);
}

function keyIdentifiersAgree(authorityKeyId: string | null, subjectKeyId: string | null): boolean {
  if (authorityKeyId === null || subjectKeyId === null) return true;
  return authorityKeyId.toLowerCase() === subjectKeyId.toLowerCase();
}

function normaliseDn(dn: string): string {
  return dn.trim().replace(/\s+/g, ' ').toLowerCase();
}
