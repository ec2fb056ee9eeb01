import { TruncatedDerError } from './der';
import { CertificateBlock, scanInput } from './input';
import { parseDerCertificate } from './parse-certificate';
import { CertificateParseError, CertificateParseResult, ParsedCertificate, ParseOptions } from './types';

const DEFAULT_MAX_CERTIFICATES = 100;

type CertificateOrError = { certificate: ParsedCertificate } | { error: CertificateParseError };

/**
 * Reads every certificate in `input`:
 * - text with one or many PEM CERTIFICATE blocks, with anything around and between them (CRLF,
 *   indentation, blank lines, `openssl x509 -text` output); other PEM blocks (keys, requests) are
 *   skipped when at least one CERTIFICATE block is present;
 * - text without "-----BEGIN": one base64-encoded DER certificate, whitespace allowed;
 * - bytes: DER when they start with a SEQUENCE tag (0x30), otherwise UTF-8 (or UTF-16LE with a
 *   byte order mark) text handled as above.
 *
 * Partial failure is reported, not thrown (CONVENTIONS): a bad block is an error entry next to the
 * good certificates. It never throws. Without any certificate the result holds exactly one error:
 * 'empty' when the input has no content at all (nothing but whitespace), 'not_a_certificate' when it
 * has content but no certificate in it (plain text, a PNG, or only other PEM blocks such as a lone
 * PRIVATE KEY). Duplicates (same SHA-256 fingerprint) are returned once, at their first position.
 */
export function parseCertificates(input: string | Uint8Array, options: ParseOptions = {}): CertificateParseResult {
  try {
    const scanned = scanInput(input, maxCertificatesFrom(options));
    if (scanned.kind === 'rejected') return { certificates: [], errors: [scanned.error] };
    return parseBlocks(scanned.blocks);
  } catch {
    // Every step reports rather than throws; this only keeps the promise should one of them not.
    return { certificates: [], errors: [{ index: 0, code: 'not_a_certificate', message: 'The input could not be read.' }] };
  }
}

/**
 * The first certificate of the input, or the first block's error. The first block decides: when it
 * is broken its error is returned even if later blocks are fine, so a damaged leaf is never silently
 * replaced by the next certificate of its chain. Never throws.
 */
export function parseFirstCertificate(input: string | Uint8Array): { certificate: ParsedCertificate } | { error: CertificateParseError } {
  try {
    // Only the first block is parsed, so there is no reason to refuse long bundles here.
    const scanned = scanInput(input, Infinity);
    if (scanned.kind === 'rejected') return { error: scanned.error };
    return parseBlock(scanned.blocks[0]);
  } catch {
    return { error: { index: 0, code: 'not_a_certificate', message: 'The input could not be read.' } };
  }
}

function parseBlocks(blocks: CertificateBlock[]): CertificateParseResult {
  const certificates: ParsedCertificate[] = [];
  const errors: CertificateParseError[] = [];
  const fingerprints = new Set<string>();
  for (const outcome of blocks.map(parseBlock)) {
    if ('error' in outcome) {
      errors.push(outcome.error);
    } else if (!fingerprints.has(outcome.certificate.fingerprintSha256)) {
      fingerprints.add(outcome.certificate.fingerprintSha256);
      certificates.push(outcome.certificate);
    }
  }
  return { certificates, errors };
}

function parseBlock(block: CertificateBlock): CertificateOrError {
  if (block.kind === 'unreadable') return { error: block.error };
  try {
    return { certificate: parseDerCertificate(block.der) };
  } catch (error) {
    const message =
      error instanceof TruncatedDerError ? 'The certificate is truncated.' : 'The data is not a valid DER-encoded X.509 certificate.';
    return { error: { index: block.index, code: 'invalid_der', message } };
  }
}

function maxCertificatesFrom(options: ParseOptions): number {
  const requested = options.maxCertificates;
  // NaN and negative values are mistakes, not limits; the default applies. Infinity means no limit.
  return requested !== undefined && requested >= 0 ? requested : DEFAULT_MAX_CERTIFICATES;
}
