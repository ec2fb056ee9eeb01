import { DerTag, readDerElement } from './der';
import { looksLikeContentInfo, readPkcs7Certificates } from './pkcs7';
import { CertificateParseError, CertificateParseErrorCode } from './types';

/**
 * A certificate candidate found in the input: its DER bytes; the certificates of a PKCS #7 bundle,
 * in bundle order (which means nothing: a SET OF has none); or why nothing could be extracted.
 */
export type CertificateBlock =
  | { kind: 'der'; index: number; der: Uint8Array }
  | { kind: 'bundle'; index: number; certificates: Uint8Array[] }
  | { kind: 'unreadable'; error: CertificateParseError };

/** What the input holds: certificate candidates, or the one reason it holds none worth parsing. */
export type ScannedInput = { kind: 'blocks'; blocks: CertificateBlock[] } | { kind: 'rejected'; error: CertificateParseError };

interface PemBlock {
  index: number;
  label: string;
  /** The text between the BEGIN and END lines; null when no matching END line follows. */
  body: string | null;
}

const PEM_MARKER = '-----BEGIN';
// RFC 7468 labels are printable ASCII without '-'; 64 characters is far more than any real label.
const PEM_BEGIN_LINE = /-----BEGIN ([^\r\n-]{1,64})-----/g;
// 'X509 CERTIFICATE' is the pre-RFC 7468 label some old tools still write.
const CERTIFICATE_LABELS = new Set(['CERTIFICATE', 'X509 CERTIFICATE']);
// RFC 7468 names 'PKCS7' (what OpenSSL writes) and 'CMS'; OpenSSL also reads 'PKCS #7 SIGNED DATA'.
const PKCS7_LABELS = new Set(['PKCS7', 'CMS', 'PKCS #7 SIGNED DATA']);
const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ANY_BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const UTF16LE_BYTE_ORDER_MARK = [0xff, 0xfe];
const ASCII_WHITESPACE = new Set([0x09, 0x0a, 0x0d, 0x20]);

/**
 * Finds the certificates in the input without decoding them as certificates yet. Too many
 * CERTIFICATE blocks stop the scan before any base64 is decoded, so an oversized PEM bundle costs
 * one scan of the text; the certificates of PKCS #7 bundles are counted once the bundles are read.
 */
export function scanInput(input: string | Uint8Array, maxCertificates: number): ScannedInput {
  if (typeof input === 'string') return scanText(input, maxCertificates);
  if (input instanceof Uint8Array) return scanBytes(input, maxCertificates);
  // Only reachable from untyped callers; reported like any other input that holds no certificate.
  return rejected('not_a_certificate', 'The input is neither text nor bytes.');
}

/** DER when it starts like a certificate or a PKCS #7 bundle (a SEQUENCE), otherwise text: PEM files arrive as bytes too. */
function scanBytes(bytes: Uint8Array, maxCertificates: number): ScannedInput {
  if (bytes.length === 0) return rejected('empty', 'The input is empty.');
  if (bytes[0] === DerTag.sequence) return scanDer(bytes, maxCertificates);
  return scanText(decodeText(bytes), maxCertificates);
}

/** One DER certificate, or one PKCS #7 bundle (DER or BER) whose failure to hold certificates is the input's. */
function scanDer(der: Uint8Array, maxCertificates: number): ScannedInput {
  if (!looksLikeContentInfo(der)) return { kind: 'blocks', blocks: [{ kind: 'der', index: 0, der: withoutTrailingWhitespace(der) }] };
  const reading = readPkcs7Certificates(der);
  if ('error' in reading) return rejected('invalid_pkcs7', reading.error);
  return withinLimit([{ kind: 'bundle', index: 0, certificates: reading.certificates }], maxCertificates);
}

function scanText(text: string, maxCertificates: number): ScannedInput {
  if (text.trim() === '') return rejected('empty', 'The input is empty.');
  return text.includes(PEM_MARKER) ? scanPem(text, maxCertificates) : scanBase64(text, maxCertificates);
}

function scanPem(text: string, maxCertificates: number): ScannedInput {
  const pemBlocks = findPemBlocks(text);
  const wanted = pemBlocks.filter((block) => CERTIFICATE_LABELS.has(block.label) || PKCS7_LABELS.has(block.label));
  if (wanted.length === 0) return rejected('not_a_certificate', describeMissingCertificates(pemBlocks));
  const certificateBlocks = wanted.filter((block) => CERTIFICATE_LABELS.has(block.label));
  if (certificateBlocks.length > maxCertificates)
    return tooMany(certificateBlocks.length, maxCertificates, certificateBlocks[maxCertificates].index);
  return withinLimit(wanted.map(decodePemBlock), maxCertificates);
}

/** A bare base64 string holds one DER certificate or one PKCS #7 bundle. */
function scanBase64(text: string, maxCertificates: number): ScannedInput {
  const compact = text.replace(/\s+/g, '');
  const der = ANY_BASE64.test(compact) ? Buffer.from(compact, 'base64') : null;
  if (der?.[0] !== DerTag.sequence)
    return rejected('not_a_certificate', 'The input is neither PEM nor a base64-encoded certificate or PKCS #7 bundle.');
  return scanDer(der, maxCertificates);
}

/** Counts every certificate, those inside bundles included; a block that could not be read counts as one. */
function withinLimit(blocks: CertificateBlock[], maxCertificates: number): ScannedInput {
  let count = 0;
  let firstBeyond: number | null = null;
  for (const block of blocks) {
    count += block.kind === 'bundle' ? block.certificates.length : 1;
    if (firstBeyond === null && count > maxCertificates) firstBeyond = block.kind === 'unreadable' ? block.error.index : block.index;
  }
  return firstBeyond === null ? { kind: 'blocks', blocks } : tooMany(count, maxCertificates, firstBeyond);
}

function tooMany(count: number, maxCertificates: number, index: number): ScannedInput {
  return rejected('too_many', `The input has ${count} certificates; at most ${maxCertificates} are accepted at once.`, index);
}

/**
 * Every BEGIN line opens a block; its END line must come before the next BEGIN line. Searching only
 * up to the next BEGIN keeps the scan linear however many unterminated blocks the input has.
 */
function findPemBlocks(text: string): PemBlock[] {
  const beginLines = [...text.matchAll(PEM_BEGIN_LINE)];
  return beginLines.map((beginLine, index) => {
    const label = beginLine[1].trim();
    const bodyStart = beginLine.index + beginLine[0].length;
    const region = text.slice(bodyStart, beginLines[index + 1]?.index ?? text.length);
    const end = region.indexOf(`-----END ${label}-----`);
    return { index, label, body: end === -1 ? null : region.slice(0, end) };
  });
}

function decodePemBlock(block: PemBlock): CertificateBlock {
  if (block.body === null) return unreadable(block.index, 'invalid_pem', `The ${block.label} block has no matching END line.`);
  // Removing all whitespace makes CRLF line ends, indentation and blank lines irrelevant.
  const base64 = block.body.replace(/\s+/g, '');
  if (!STANDARD_BASE64.test(base64) || base64.length % 4 === 1) {
    return unreadable(block.index, 'invalid_pem', `The ${block.label} block is not valid base64.`);
  }
  const der = Buffer.from(base64, 'base64');
  if (CERTIFICATE_LABELS.has(block.label)) return { kind: 'der', index: block.index, der };
  const reading = readPkcs7Certificates(der);
  if ('error' in reading) return unreadable(block.index, 'invalid_pkcs7', reading.error);
  return { kind: 'bundle', index: block.index, certificates: reading.certificates };
}

function describeMissingCertificates(pemBlocks: PemBlock[]): string {
  if (pemBlocks.length === 0) return 'The input has no complete PEM BEGIN line.';
  const labels = [...new Set(pemBlocks.map((block) => block.label))].join(', ');
  return `The input has no CERTIFICATE or PKCS7 block, only: ${labels}.`;
}

/**
 * Files often end in a newline, which is not part of the DER. Only whitespace after a complete
 * element is dropped: the DER itself may end in bytes that look like whitespace.
 */
function withoutTrailingWhitespace(bytes: Uint8Array): Uint8Array {
  try {
    const { encoded } = readDerElement(bytes);
    return bytes.subarray(encoded.length).every((byte) => ASCII_WHITESPACE.has(byte)) ? encoded : bytes;
  } catch {
    // Truncated or malformed: parsing the bytes as they are reports it.
    return bytes;
  }
}

// Windows tools (PowerShell's default "Unicode" encoding) write PEM as UTF-16LE with a byte order mark.
function decodeText(bytes: Uint8Array): string {
  const isUtf16le = UTF16LE_BYTE_ORDER_MARK.every((byte, i) => bytes[i] === byte);
  return new TextDecoder(isUtf16le ? 'utf-16le' : 'utf-8').decode(bytes);
}

function rejected(code: CertificateParseErrorCode, message: string, index = 0): ScannedInput {
  return { kind: 'rejected', error: { index, code, message } };
}

function unreadable(index: number, code: CertificateParseErrorCode, message: string): CertificateBlock {
  return { kind: 'unreadable', error: { index, code, message } };
}
