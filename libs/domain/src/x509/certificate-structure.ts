import {
  constructedContextTag,
  decodeObjectIdentifier,
  DerElement,
  DerError,
  DerTag,
  expectTag,
  readChildren,
  readSingleDerElement,
} from './der';
import { RawExtension } from './extensions';

/** The parts of a certificate read straight from its DER, byte for byte. */
export interface CertificateStructure {
  /** Content octets of the serialNumber INTEGER. */
  serialNumber: Uint8Array;
  /** Complete encodings of the issuer and subject Names, as signed. */
  issuerName: Uint8Array;
  subjectName: Uint8Array;
  subjectPublicKeyInfo: DerElement;
  extensions: RawExtension[];
  /** The outer signatureAlgorithm, the one the signature was actually made with. */
  signatureAlgorithmOid: string;
}

const VERSION = constructedContextTag(0);
const EXTENSIONS = constructedContextTag(3);

/**
 * Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
 * TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity,
 *                               subject, subjectPublicKeyInfo, [1] [2] unique IDs, [3] extensions }
 */
export function readCertificateStructure(der: Uint8Array): CertificateStructure {
  const certificate = expectTag(readSingleDerElement(der), DerTag.sequence, 'a certificate SEQUENCE');
  const [tbsCertificate, signatureAlgorithm] = readChildren(certificate);
  const fields = readChildren(expectTag(tbsCertificate, DerTag.sequence, 'a TBSCertificate SEQUENCE'));
  // Version 1 certificates omit the version; the inner signature and the validity are read by @peculiar/x509.
  const [serialNumber, , issuer, , subject, subjectPublicKeyInfo, ...optional] = fields[0]?.tag === VERSION ? fields.slice(1) : fields;
  return {
    serialNumber: expectTag(serialNumber, DerTag.integer, 'the serial number').content,
    issuerName: expectTag(issuer, DerTag.sequence, 'the issuer name').encoded,
    subjectName: expectTag(subject, DerTag.sequence, 'the subject name').encoded,
    subjectPublicKeyInfo: expectTag(subjectPublicKeyInfo, DerTag.sequence, 'the subject public key'),
    extensions: readExtensions(optional.find((field) => field.tag === EXTENSIONS)),
    signatureAlgorithmOid: algorithmOid(expectTag(signatureAlgorithm, DerTag.sequence, 'the signature algorithm')),
  };
}

/** AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL } */
function algorithmOid(algorithmIdentifier: DerElement): string {
  return decodeObjectIdentifier(readChildren(algorithmIdentifier)[0]);
}

/** Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } */
function readExtensions(wrapper: DerElement | undefined): RawExtension[] {
  if (wrapper === undefined) return [];
  const [list] = readChildren(wrapper);
  return readChildren(expectTag(list, DerTag.sequence, 'the extension list')).map((extension) => {
    const fields = readChildren(expectTag(extension, DerTag.sequence, 'an extension'));
    if (fields.length < 2) throw new DerError('An extension has an identifier and a value.');
    const value = expectTag(fields[fields.length - 1], DerTag.octetString, 'an extension value');
    return { oid: decodeObjectIdentifier(fields[0]), value: value.content };
  });
}
