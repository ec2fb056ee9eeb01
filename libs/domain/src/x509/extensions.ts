import {
  bitStringBytes,
  constructedContextTag,
  contextTag,
  decodeBoolean,
  decodeObjectIdentifier,
  decodeSmallNonNegativeInteger,
  DerElement,
  DerTag,
  expectTag,
  readChildren,
  readSingleDerElement,
  toHex,
} from './der';
import { decodeGeneralName, decodeGeneralNames, uris } from './general-names';
import { AccessMethodOid, EXTENDED_KEY_USAGE_NAMES, ExtensionOid, KEY_USAGE_NAMES, nameOf } from './oids';
import type { ParsedCertificate } from './types';

/** An extension as it sits in the certificate: `value` is the DER inside the extnValue OCTET STRING. */
export interface RawExtension {
  oid: string;
  value: Uint8Array;
}

/** The fields of a ParsedCertificate its extensions decide (documented there). */
export type DecodedExtensions = Pick<
  ParsedCertificate,
  | 'sans'
  | 'keyUsage'
  | 'extendedKeyUsage'
  | 'ocspUrls'
  | 'caIssuersUrls'
  | 'crlDistributionPoints'
  | 'subjectKeyId'
  | 'authorityKeyId'
  | 'isCa'
  | 'pathLength'
>;

interface BasicConstraints {
  isCa: boolean;
  pathLength: number | null;
}

interface AuthorityInformationAccess {
  ocspUrls: string[];
  caIssuersUrls: string[];
}

const NOT_A_CA: BasicConstraints = { isCa: false, pathLength: null };
const NO_AUTHORITY_INFORMATION: AuthorityInformationAccess = { ocspUrls: [], caIssuersUrls: [] };

/**
 * Decodes the extensions Certkeeper reports. Each one is decoded on its own and a malformed or
 * absent one reads as "not present": a certificate with one broken extension still has an expiry
 * date worth tracking, and the others stay readable.
 */
export function decodeExtensions(extensions: RawExtension[]): DecodedExtensions {
  // RFC 5280 forbids repeating an extension; should a certificate do it anyway, the first one counts.
  const valueOf = (oid: string) => extensions.find((extension) => extension.oid === oid)?.value;
  const decode = <T>(oid: string, decoder: (value: DerElement) => T, absent: T): T => decodeLeniently(valueOf(oid), decoder, absent);

  const basicConstraints = decode(ExtensionOid.basicConstraints, decodeBasicConstraints, NOT_A_CA);
  const authorityInformation = decode(ExtensionOid.authorityInfoAccess, decodeAuthorityInformationAccess, NO_AUTHORITY_INFORMATION);
  return {
    sans: decode(ExtensionOid.subjectAltName, decodeSubjectAltNames, []),
    keyUsage: decode(ExtensionOid.keyUsage, decodeKeyUsage, []),
    extendedKeyUsage: decode(ExtensionOid.extendedKeyUsage, decodeExtendedKeyUsage, []),
    ocspUrls: authorityInformation.ocspUrls,
    caIssuersUrls: authorityInformation.caIssuersUrls,
    crlDistributionPoints: decode(ExtensionOid.crlDistributionPoints, decodeCrlDistributionPoints, []),
    subjectKeyId: decode(ExtensionOid.subjectKeyIdentifier, decodeSubjectKeyIdentifier, null),
    authorityKeyId: decode(ExtensionOid.authorityKeyIdentifier, decodeAuthorityKeyIdentifier, null),
    isCa: basicConstraints.isCa,
    pathLength: basicConstraints.pathLength,
  };
}

function decodeLeniently<T>(value: Uint8Array | undefined, decoder: (value: DerElement) => T, absent: T): T {
  if (value === undefined) return absent;
  try {
    return decoder(readSingleDerElement(value));
  } catch {
    return absent;
  }
}

function decodeSubjectAltNames(value: DerElement): string[] {
  return decodeGeneralNames(expectTag(value, DerTag.sequence, 'GeneralNames')).map((name) => name.value);
}

/** KeyUsage is a named BIT STRING: bit 0 is the most significant bit of the first octet. */
function decodeKeyUsage(value: DerElement): string[] {
  const bits = bitStringBytes(value);
  const isSet = (bit: number) => bit >> 3 < bits.length && (bits[bit >> 3] & (0x80 >> (bit & 7))) !== 0;
  return KEY_USAGE_NAMES.filter((_, bit) => isSet(bit));
}

function decodeExtendedKeyUsage(value: DerElement): string[] {
  return sequenceItems(value).map((purpose) => nameOf(EXTENDED_KEY_USAGE_NAMES, decodeObjectIdentifier(purpose)));
}

/** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL } */
function decodeBasicConstraints(value: DerElement): BasicConstraints {
  const fields = sequenceItems(value);
  const caField = fields.find((field) => field.tag === DerTag.boolean);
  const pathLengthField = fields.find((field) => field.tag === DerTag.integer);
  return {
    isCa: caField ? decodeBoolean(caField) : false,
    pathLength: pathLengthField ? decodeSmallNonNegativeInteger(pathLengthField) : null,
  };
}

/** AuthorityInfoAccessSyntax ::= SEQUENCE OF SEQUENCE { accessMethod OID, accessLocation GeneralName } */
function decodeAuthorityInformationAccess(value: DerElement): AuthorityInformationAccess {
  const ocspUrls: string[] = [];
  const caIssuersUrls: string[] = [];
  for (const description of sequenceItems(value)) {
    const [method, location] = sequenceItems(description);
    if (location === undefined) continue;
    const urls = uris([decodeGeneralName(location)]);
    const accessMethod = decodeObjectIdentifier(method);
    if (accessMethod === AccessMethodOid.ocsp) ocspUrls.push(...urls);
    if (accessMethod === AccessMethodOid.caIssuers) caIssuersUrls.push(...urls);
  }
  return { ocspUrls, caIssuersUrls };
}

/**
 * CRLDistributionPoints ::= SEQUENCE OF DistributionPoint, where the URIs sit in
 * distributionPoint [0] -> fullName [0] (GeneralNames). Relative names and cRLIssuer carry none.
 */
function decodeCrlDistributionPoints(value: DerElement): string[] {
  return sequenceItems(value).flatMap((distributionPoint) => {
    const name = readChildren(distributionPoint).find((field) => field.tag === constructedContextTag(0));
    const fullName = name ? readChildren(name).find((choice) => choice.tag === constructedContextTag(0)) : undefined;
    return fullName ? uris(decodeGeneralNames(fullName)) : [];
  });
}

function decodeSubjectKeyIdentifier(value: DerElement): string {
  return toHex(expectTag(value, DerTag.octetString, 'a key identifier').content);
}

/** AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] OPTIONAL, authorityCertIssuer [1], serial [2] } */
function decodeAuthorityKeyIdentifier(value: DerElement): string | null {
  const keyIdentifier = sequenceItems(value).find((field) => field.tag === contextTag(0));
  return keyIdentifier ? toHex(keyIdentifier.content) : null;
}

function sequenceItems(value: DerElement): DerElement[] {
  return readChildren(expectTag(value, DerTag.sequence, 'a SEQUENCE'));
}
