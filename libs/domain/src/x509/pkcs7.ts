import type * as Pkijs from 'pkijs';
import { loadedOnFirstUse } from '../loaded-on-first-use';
import { DerTag, readDerElement } from './der';

// Only uploads of .p7b bundles need it; loaded then, not at every start (loaded-on-first-use.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start-up
const loadPkijs = loadedOnFirstUse(() => require('pkijs') as typeof Pkijs);

/** The certificates of a PKCS #7 bundle, as the encodings found in it, in bundle order; or why there are none. */
export type Pkcs7Reading = { certificates: Uint8Array[] } | { error: string };

/**
 * The parts of a node of pkijs's parse tree (asn1js) read here. ContentInfo keeps its content as
 * that untyped tree, and every node remembers the exact bytes it was decoded from.
 */
interface Asn1Node {
  idBlock: { tagClass: number; tagNumber: number; isConstructed: boolean };
  valueBlock: { value?: unknown };
  valueBeforeDecodeView: Uint8Array;
}

const UNIVERSAL = 1;
const CONTEXT_SPECIFIC = 3;
const INTEGER = 2;
const SEQUENCE = 16;
const SET = 17;

// The other content types of PKCS #7 (RFC 2315) and CMS (RFC 5652), to say what was sent instead.
const CONTENT_TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ['1.2.840.113549.1.7.1', 'Data'],
  ['1.2.840.113549.1.7.3', 'EnvelopedData'],
  ['1.2.840.113549.1.7.4', 'SignedAndEnvelopedData'],
  ['1.2.840.113549.1.7.5', 'DigestedData'],
  ['1.2.840.113549.1.7.6', 'EncryptedData'],
  ['1.2.840.113549.1.9.16.1.2', 'AuthenticatedData'],
  ['1.2.840.113549.1.9.16.1.9', 'CompressedData'],
]);

const ASCII_WHITESPACE = new Set([0x09, 0x0a, 0x0d, 0x20]);

/**
 * Whether DER or BER bytes look like a ContentInfo (SEQUENCE { contentType OBJECT IDENTIFIER, ... })
 * rather than a certificate (SEQUENCE { tbsCertificate SEQUENCE, ... }): the first element inside
 * the outer SEQUENCE tells them apart. Reads the outer header only, indefinite length included.
 */
export function looksLikeContentInfo(bytes: Uint8Array): boolean {
  if (bytes[0] !== DerTag.sequence || bytes.length < 2) return false;
  const lengthOctet = bytes[1];
  const headerLength = lengthOctet <= 0x80 ? 2 : 2 + (lengthOctet & 0x7f);
  return bytes[headerLength] === DerTag.objectIdentifier;
}

/**
 * Reads the certificates of a PKCS #7 / CMS ContentInfo holding SignedData: a certs-only bundle
 * (.p7b, .p7c, `openssl crl2pkcs7`) or any signed message. pkijs decodes it, BER included (streaming
 * encoders write indefinite lengths, which the DER reader refuses), and checks the ContentInfo.
 *
 * The certificates are returned as the exact bytes found, one by one, for the caller to parse:
 * pkijs's SignedData class would refuse the whole bundle for one malformed certificate (a bad one
 * must be an error next to the good ones) and re-encodes what it parses (a UTCTime without seconds
 * comes back with them), which would change fingerprints. Attribute certificates and other
 * CertificateChoices are not X.509 public-key certificates and are skipped. Never throws.
 */
export function readPkcs7Certificates(bytes: Uint8Array): Pkcs7Reading {
  const pkijs = loadPkijs();
  let contentInfo: Pkijs.ContentInfo;
  try {
    contentInfo = pkijs.ContentInfo.fromBER(bytes);
  } catch {
    return { error: 'The PKCS #7 data is truncated or malformed.' };
  }
  if (hasTrailingData(bytes)) return { error: 'Unexpected bytes follow the PKCS #7 data.' };
  if (contentInfo.contentType !== pkijs.ContentInfo.SIGNED_DATA) {
    const name = CONTENT_TYPE_NAMES.get(contentInfo.contentType) ?? `of type ${contentInfo.contentType}`;
    return { error: `The PKCS #7 data is ${name}, not SignedData: only a SignedData bundle (.p7b, .p7c) carries certificates.` };
  }
  const choices = certificateChoices(contentInfo.content as Asn1Node);
  if (choices === null) return { error: 'The PKCS #7 SignedData is malformed.' };
  const certificates = choices.filter((choice) => isUniversal(choice, SEQUENCE)).map((choice) => choice.valueBeforeDecodeView);
  if (certificates.length === 0) {
    const others = choices.length > 0 ? ' (only attribute or other certificate formats)' : '';
    return { error: `The PKCS #7 bundle has no certificates${others}.` };
  }
  return { certificates };
}

/**
 * SignedData ::= SEQUENCE { version INTEGER, digestAlgorithms SET, encapContentInfo SEQUENCE,
 *                           certificates [0] IMPLICIT CertificateSet OPTIONAL, crls [1] ..., signerInfos SET }
 * The elements of `certificates` ([] when it is absent), or null when the SignedData is malformed.
 */
function certificateChoices(signedData: Asn1Node): Asn1Node[] | null {
  const fields = isUniversal(signedData, SEQUENCE) ? childrenOf(signedData) : null;
  if (fields === null || fields.length < 4) return null;
  const [version, digestAlgorithms, encapContentInfo, fourth] = fields;
  if (!isUniversal(version, INTEGER) || !isUniversal(digestAlgorithms, SET) || !isUniversal(encapContentInfo, SEQUENCE)) return null;
  const isCertificateSet = fourth.idBlock.tagClass === CONTEXT_SPECIFIC && fourth.idBlock.tagNumber === 0;
  return isCertificateSet ? childrenOf(fourth) : [];
}

function childrenOf(node: Asn1Node): Asn1Node[] | null {
  const value = node.idBlock.isConstructed ? node.valueBlock.value : undefined;
  return Array.isArray(value) ? (value as Asn1Node[]) : null;
}

function isUniversal(node: Asn1Node, tagNumber: number): boolean {
  return node.idBlock.tagClass === UNIVERSAL && node.idBlock.tagNumber === tagNumber;
}

/**
 * pkijs reads the first element and ignores what follows. With a definite length (DER, and what
 * nearly every tool writes) anything after it but whitespace, such as a file's final newline, is
 * refused as it is for a certificate; with an indefinite length the end is only known to pkijs.
 */
function hasTrailingData(bytes: Uint8Array): boolean {
  try {
    const { encoded } = readDerElement(bytes);
    return !bytes.subarray(encoded.length).every((byte) => ASCII_WHITESPACE.has(byte));
  } catch {
    return false;
  }
}
