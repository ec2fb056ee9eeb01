import { createHash, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { CertificateStructure, readCertificateStructure } from './certificate-structure';
import { toHex } from './der';
import { decodeExtensions } from './extensions';
import { nameOf, SIGNATURE_ALGORITHM_NAMES } from './oids';
import { describePublicKey } from './public-key';
import { ParsedCertificate } from './types';
import { peculiarX509, type PeculiarX509 } from './x509-library';

const PEM_LINE_LENGTH = 64;

/**
 * Parses exactly one DER-encoded certificate. Throws when the bytes are not one: parseCertificates
 * turns that into an 'invalid_der' entry, so this is internal.
 */
export function parseDerCertificate(bytes: Uint8Array): ParsedCertificate {
  // A copy, so the result never aliases (or keeps alive) a larger buffer the caller passed in.
  const der = Uint8Array.from(bytes);
  const structure = readCertificateStructure(der);
  // @peculiar/x509 checks the whole certificate against the ASN.1 schema and decodes names and dates.
  const certificate = new (peculiarX509().X509Certificate)(der);
  return {
    der,
    pem: certificateToPem(der),
    fingerprintSha256: digestHex('sha256', der),
    fingerprintSha1: digestHex('sha1', der),
    serialNumber: serialNumberHex(structure.serialNumber),
    subject: certificate.subject,
    issuer: certificate.issuer,
    commonName: firstValue(certificate.subjectName, 'CN'),
    subjectOrganization: firstValue(certificate.subjectName, 'O'),
    subjectOrganizationalUnit: firstValue(certificate.subjectName, 'OU'),
    issuerCommonName: firstValue(certificate.issuerName, 'CN'),
    issuerOrganization: firstValue(certificate.issuerName, 'O'),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    ...describePublicKey(structure.subjectPublicKeyInfo),
    signatureAlgorithm: nameOf(SIGNATURE_ALGORITHM_NAMES, structure.signatureAlgorithmOid),
    ...decodeExtensions(structure.extensions),
    selfSigned: isSelfSigned(der, structure),
    subjectDnHash: digestHex('sha256', structure.subjectName),
    issuerDnHash: digestHex('sha256', structure.issuerName),
  };
}

/** DER as one canonical PEM block: 64-character base64 lines, ending in a newline. */
export function certificateToPem(der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines: string[] = [];
  for (let start = 0; start < base64.length; start += PEM_LINE_LENGTH) lines.push(base64.slice(start, start + PEM_LINE_LENGTH));
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function digestHex(algorithm: 'sha256' | 'sha1', bytes: Uint8Array): string {
  return createHash(algorithm).update(bytes).digest('hex');
}

/** DER prefixes a 00 octet when the top bit of a positive INTEGER is set; it is not part of the number. */
function serialNumberHex(integerContent: Uint8Array): string {
  const withoutSignOctet = integerContent.length > 1 && integerContent[0] === 0 ? integerContent.subarray(1) : integerContent;
  return toHex(withoutSignOctet);
}

function firstValue(name: PeculiarX509.Name, attributeType: string): string | null {
  const [first] = name.getField(attributeType);
  return first ?? null;
}

/**
 * Self-signed means self-issued (byte-equal names) and signed by its own key. Node's X509Certificate
 * verifies synchronously (WebCrypto cannot), and through OpenSSL it covers RSA, RSA-PSS, ECDSA and
 * EdDSA. Anything it cannot verify counts as not self-signed.
 */
function isSelfSigned(der: Uint8Array, structure: CertificateStructure): boolean {
  if (!Buffer.from(structure.subjectName).equals(structure.issuerName)) return false;
  try {
    const certificate = new NodeX509Certificate(der);
    return certificate.verify(certificate.publicKey);
  } catch {
    return false;
  }
}
