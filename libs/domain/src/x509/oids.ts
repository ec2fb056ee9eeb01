// Object identifiers Certkeeper names. Anything not listed here is reported by its dotted OID.

export const ExtensionOid = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extendedKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
} as const;

export const AccessMethodOid = {
  ocsp: '1.3.6.1.5.5.7.48.1',
  caIssuers: '1.3.6.1.5.5.7.48.2',
} as const;

export const KeyAlgorithmOid = {
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsassaPss: '1.2.840.113549.1.1.10',
  ecPublicKey: '1.2.840.10045.2.1',
  ed25519: '1.3.101.112',
  ed448: '1.3.101.113',
} as const;

export interface NamedCurve {
  /** The NIST name for the curves Certkeeper names, otherwise the curve's OID. */
  name: string;
  bits: number;
}

export const NAMED_CURVES: ReadonlyMap<string, NamedCurve> = new Map([
  ['1.2.840.10045.3.1.7', { name: 'P-256', bits: 256 }],
  ['1.3.132.0.34', { name: 'P-384', bits: 384 }],
  ['1.3.132.0.35', { name: 'P-521', bits: 521 }],
  // Curves without a NIST name keep their OID as the name but still report a size.
  ['1.3.132.0.10', { name: '1.3.132.0.10', bits: 256 }], // secp256k1
  ['1.3.36.3.3.2.8.1.1.7', { name: '1.3.36.3.3.2.8.1.1.7', bits: 256 }], // brainpoolP256r1
  ['1.3.36.3.3.2.8.1.1.11', { name: '1.3.36.3.3.2.8.1.1.11', bits: 384 }], // brainpoolP384r1
  ['1.3.36.3.3.2.8.1.1.13', { name: '1.3.36.3.3.2.8.1.1.13', bits: 512 }], // brainpoolP512r1
]);

// Names as OpenSSL prints them, which is what operators search for.
export const SIGNATURE_ALGORITHM_NAMES: ReadonlyMap<string, string> = new Map([
  ['1.2.840.113549.1.1.2', 'md2WithRSAEncryption'],
  ['1.2.840.113549.1.1.4', 'md5WithRSAEncryption'],
  ['1.2.840.113549.1.1.5', 'sha1WithRSAEncryption'],
  ['1.2.840.113549.1.1.10', 'RSASSA-PSS'],
  ['1.2.840.113549.1.1.11', 'sha256WithRSAEncryption'],
  ['1.2.840.113549.1.1.12', 'sha384WithRSAEncryption'],
  ['1.2.840.113549.1.1.13', 'sha512WithRSAEncryption'],
  ['1.2.840.113549.1.1.14', 'sha224WithRSAEncryption'],
  ['1.2.840.10045.4.1', 'ecdsa-with-SHA1'],
  ['1.2.840.10045.4.3.1', 'ecdsa-with-SHA224'],
  ['1.2.840.10045.4.3.2', 'ecdsa-with-SHA256'],
  ['1.2.840.10045.4.3.3', 'ecdsa-with-SHA384'],
  ['1.2.840.10045.4.3.4', 'ecdsa-with-SHA512'],
  ['1.2.840.10040.4.3', 'dsa-with-SHA1'],
  ['2.16.840.1.101.3.4.3.2', 'dsa-with-SHA256'],
  ['1.3.101.112', 'Ed25519'],
  ['1.3.101.113', 'Ed448'],
  ['2.16.840.1.101.3.4.3.17', 'ML-DSA-44'],
  ['2.16.840.1.101.3.4.3.18', 'ML-DSA-65'],
  ['2.16.840.1.101.3.4.3.19', 'ML-DSA-87'],
]);

export const EXTENDED_KEY_USAGE_NAMES: ReadonlyMap<string, string> = new Map([
  ['1.3.6.1.5.5.7.3.1', 'serverAuth'],
  ['1.3.6.1.5.5.7.3.2', 'clientAuth'],
  ['1.3.6.1.5.5.7.3.3', 'codeSigning'],
  ['1.3.6.1.5.5.7.3.4', 'emailProtection'],
  ['1.3.6.1.5.5.7.3.8', 'timeStamping'],
  ['1.3.6.1.5.5.7.3.9', 'OCSPSigning'],
]);

/** RFC 5280 section 4.2.1.3, indexed by bit number. */
export const KEY_USAGE_NAMES = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;

/** Looks an OID up in a table of names; unknown OIDs stay dotted so nothing is lost. */
export function nameOf(table: ReadonlyMap<string, string>, oid: string): string {
  return table.get(oid) ?? oid;
}
