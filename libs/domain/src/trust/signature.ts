// Hand-written on purpose, where CSV, HTML-to-text and cron use libraries: this is the fast path
// of every trust evaluation. A library verification (pkijs: parse, key import, WebCrypto) costs
// tens of times this direct crypto.verify on a cached key (docs/decisions/0005), and a first pass
// verifies tens of thousands of signatures. It also refuses a certificate whose outer and inner
// signature algorithms differ, which pkijs accepts. See decision 0006.
import { KeyObject, verify, X509Certificate } from 'node:crypto';
import { decodeObjectIdentifier, DerElement, DerTag, expectTag, readChildren, readSingleDerElement } from '../x509/der';

interface SignatureScheme {
  /** Node's digest name; null for EdDSA, which hashes internally. */
  hash: string | null;
  /** KeyObject.asymmetricKeyType the issuer's key must have. */
  keyType: string;
}

/** The schemes of nearly every certificate; the rest (RSA-PSS, DSA, MD5) go through X509Certificate. */
const SIGNATURE_SCHEMES: ReadonlyMap<string, SignatureScheme> = new Map([
  ['1.2.840.113549.1.1.5', { hash: 'sha1', keyType: 'rsa' }],
  ['1.2.840.113549.1.1.14', { hash: 'sha224', keyType: 'rsa' }],
  ['1.2.840.113549.1.1.11', { hash: 'sha256', keyType: 'rsa' }],
  ['1.2.840.113549.1.1.12', { hash: 'sha384', keyType: 'rsa' }],
  ['1.2.840.113549.1.1.13', { hash: 'sha512', keyType: 'rsa' }],
  ['1.2.840.10045.4.1', { hash: 'sha1', keyType: 'ec' }],
  ['1.2.840.10045.4.3.1', { hash: 'sha224', keyType: 'ec' }],
  ['1.2.840.10045.4.3.2', { hash: 'sha256', keyType: 'ec' }],
  ['1.2.840.10045.4.3.3', { hash: 'sha384', keyType: 'ec' }],
  ['1.2.840.10045.4.3.4', { hash: 'sha512', keyType: 'ec' }],
  ['1.3.101.112', { hash: null, keyType: 'ed25519' }],
  ['1.3.101.113', { hash: null, keyType: 'ed448' }],
]);

interface SignedParts {
  tbsCertificate: Uint8Array;
  /** The signature algorithm named outside and inside the signed part: they must be the same. */
  outerAlgorithm: DerElement;
  innerAlgorithm: DerElement | undefined;
  signature: Uint8Array;
}

/**
 * Whether `issuerKey` made the signature on the certificate `der`. Same answer as Node's
 * `new X509Certificate(der).verify(issuerKey)`, which is the fallback, but for the common schemes
 * it verifies the signed bytes directly: building an X509Certificate decodes the certificate's own
 * public key too, which costs more than the verification itself (OpenSSL 3) and would dominate an
 * evaluation of 100,000 leaves. Never throws: what cannot be verified does not verify.
 */
export function verifyCertificateSignature(der: Uint8Array, issuerKey: KeyObject): boolean {
  const check = signatureCheck(der, issuerKey);
  if (typeof check === 'boolean') return check;
  try {
    return verify(check.hash, check.data, issuerKey, check.signature);
  } catch {
    return false;
  }
}

/**
 * The same answer as verifyCertificateSignature, computed on libuv's thread pool: many of these
 * at once use every core (ECDSA P-384, a millisecond each, is most of a first evaluation).
 */
export function verifyCertificateSignatureAsync(der: Uint8Array, issuerKey: KeyObject): Promise<boolean> {
  const check = signatureCheck(der, issuerKey);
  if (typeof check === 'boolean') return Promise.resolve(check);
  return new Promise((resolve) => {
    try {
      verify(check.hash, check.data, issuerKey, check.signature, (error, verifies) => resolve(error === null && verifies));
    } catch {
      resolve(false);
    }
  });
}

/**
 * Whether `key` made `signature` over `data` under the signature algorithm `algorithmOid`: for
 * other signed structures than certificates (OCSP responses). Never throws; an algorithm outside
 * the common schemes does not verify.
 */
export function verifySignedBytes(algorithmOid: string, data: Uint8Array, signature: Uint8Array, key: KeyObject): boolean {
  const scheme = SIGNATURE_SCHEMES.get(algorithmOid);
  if (scheme === undefined || key.asymmetricKeyType !== scheme.keyType) return false;
  try {
    return verify(scheme.hash, data, key, signature);
  } catch {
    return false;
  }
}

/** What to verify for the common schemes, or the answer itself (a mismatch, or the fallback's verdict). */
function signatureCheck(der: Uint8Array, issuerKey: KeyObject): boolean | { hash: string | null; data: Uint8Array; signature: Uint8Array } {
  try {
    const parts = readSignedParts(der);
    const scheme = SIGNATURE_SCHEMES.get(decodeObjectIdentifier(readChildren(parts.outerAlgorithm)[0]));
    if (scheme === undefined) return new X509Certificate(der).verify(issuerKey);
    if (!sameBytes(parts.outerAlgorithm.encoded, parts.innerAlgorithm?.encoded)) return false;
    if (issuerKey.asymmetricKeyType !== scheme.keyType) return false;
    return { hash: scheme.hash, data: parts.tbsCertificate, signature: parts.signature };
  } catch {
    return false;
  }
}

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING } */
function readSignedParts(der: Uint8Array): SignedParts {
  const [tbsCertificate, outerAlgorithm, signatureValue] = readChildren(
    expectTag(readSingleDerElement(der), DerTag.sequence, 'a certificate'),
  );
  const tbsFields = readChildren(expectTag(tbsCertificate, DerTag.sequence, 'a TBSCertificate'));
  // TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, ... }
  const innerAlgorithm = tbsFields[0]?.tag === DerTag.integer ? tbsFields[1] : tbsFields[2];
  const signature = expectTag(signatureValue, DerTag.bitString, 'a signature').content;
  // The first octet counts unused bits; a signature is whole octets.
  if (signature[0] !== 0) throw new Error('The signature is not a whole number of octets.');
  return {
    tbsCertificate: tbsCertificate.encoded,
    outerAlgorithm: expectTag(outerAlgorithm, DerTag.sequence, 'a signature algorithm'),
    innerAlgorithm,
    signature: signature.subarray(1),
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && Buffer.compare(a, b) === 0;
}
