import { TruncatedDerError } from './der';
import { CertificateBlock, scanInput } from './input';
import { isIssuedBy } from './issued-by';
import { parseDerCertificate } from './parse-certificate';
import { CertificateParseError, CertificateParseResult, ParsedCertificate, ParseOptions } from './types';

const DEFAULT_MAX_CERTIFICATES = 100;

type CertificateOrError = { certificate: ParsedCertificate } | { error: CertificateParseError };

/**
 * Reads every certificate in `input`:
 * - text with one or many PEM CERTIFICATE blocks, with anything around and between them (CRLF,
 *   indentation, blank lines, `openssl x509 -text` output); other PEM blocks (keys, requests) are
 *   skipped when at least one CERTIFICATE or PKCS7 block is present;
 * - PKCS7 (also CMS, PKCS #7 SIGNED DATA) PEM blocks holding a SignedData bundle (.p7b, .p7c,
 *   `openssl crl2pkcs7`), alone or among CERTIFICATE blocks: every certificate in it is read;
 * - text without "-----BEGIN": one base64-encoded DER certificate or PKCS #7 bundle, whitespace allowed;
 * - bytes: DER (or, for PKCS #7, BER) when they start with a SEQUENCE tag (0x30), otherwise UTF-8
 *   (or UTF-16LE with a byte order mark) text handled as above.
 *
 * Certificates come in input order. A PKCS #7 bundle is a SET OF certificates, which has no order,
 * so its leaf comes first, then the rest in bundle order. The leaf is a certificate that issued none
 * of the others (by name and key identifier, as isIssuedBy decides; signatures are not checked): the
 * first such that is not a CA, else the first such. Bundle order is kept when every certificate
 * issued another (a cycle of cross-signs).
 *
 * Partial failure is reported, not thrown (CONVENTIONS): a bad block, or a bad certificate inside a
 * bundle, is an error entry next to the good certificates. It never throws. Without any certificate
 * the result holds exactly one error: 'empty' when the input has no content at all (nothing but
 * whitespace), 'not_a_certificate' when it has content but no certificate in it (plain text, a PNG,
 * or only other PEM blocks such as a lone PRIVATE KEY), 'invalid_pkcs7' when it is one PKCS #7 that
 * cannot be read, is not SignedData or holds no certificate. Duplicates (same SHA-256 fingerprint)
 * are returned once, at their first position.
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
 * replaced by the next certificate of its chain. When the first block is a PKCS #7 bundle, its leaf
 * (as parseCertificates orders it) is the first certificate, and any certificate of the bundle that
 * cannot be read is the error, since it might have been the leaf. Never throws.
 */
export function parseFirstCertificate(input: string | Uint8Array): { certificate: ParsedCertificate } | { error: CertificateParseError } {
  try {
    // Only the first block is parsed, so there is no reason to refuse long bundles here.
    const scanned = scanInput(input, Infinity);
    if (scanned.kind === 'rejected') return { error: scanned.error };
    const outcomes = parseBlock(scanned.blocks[0]);
    return outcomes.find((outcome) => 'error' in outcome) ?? outcomes[0];
  } catch {
    return { error: { index: 0, code: 'not_a_certificate', message: 'The input could not be read.' } };
  }
}

function parseBlocks(blocks: CertificateBlock[]): CertificateParseResult {
  const certificates: ParsedCertificate[] = [];
  const errors: CertificateParseError[] = [];
  const fingerprints = new Set<string>();
  for (const outcome of blocks.flatMap(parseBlock)) {
    if ('error' in outcome) {
      errors.push(outcome.error);
    } else if (!fingerprints.has(outcome.certificate.fingerprintSha256)) {
      fingerprints.add(outcome.certificate.fingerprintSha256);
      certificates.push(outcome.certificate);
    }
  }
  return { certificates, errors };
}

/** One outcome per certificate of the block: one for a certificate, one per certificate of a bundle, leaf first. */
function parseBlock(block: CertificateBlock): CertificateOrError[] {
  switch (block.kind) {
    case 'unreadable':
      return [{ error: block.error }];
    case 'der':
      return [parseDer(block.der, block.index)];
    case 'bundle':
      return leafFirst(block.certificates.map((der, position) => parseDer(der, block.index, position)));
  }
}

function parseDer(der: Uint8Array, index: number, positionInBundle?: number): CertificateOrError {
  try {
    return { certificate: parseDerCertificate(der) };
  } catch (error) {
    const message =
      error instanceof TruncatedDerError ? 'The certificate is truncated.' : 'The data is not a valid DER-encoded X.509 certificate.';
    return { error: { index, ...(positionInBundle === undefined ? {} : { positionInBundle }), code: 'invalid_der', message } };
  }
}

/**
 * Moves the bundle's leaf to the front (the rest keep their order): of the certificates that issued
 * none of the others, the first that is not a CA, else the first. A certificate does not count as
 * its own issuer, nor as that of a copy of itself, so a lone self-signed root is its bundle's leaf;
 * preferring non-CAs picks the leaf of a chain that lacks its intermediate ({root, leaf}).
 */
function leafFirst(outcomes: CertificateOrError[]): CertificateOrError[] {
  const certificates = outcomes.flatMap((outcome) => ('certificate' in outcome ? [outcome.certificate] : []));
  const issuedNone = (candidate: ParsedCertificate): boolean =>
    certificates.every((other) => other.fingerprintSha256 === candidate.fingerprintSha256 || !isIssuedBy(other, candidate));
  const candidates = certificates.filter(issuedNone);
  const leaf = candidates.find((candidate) => !candidate.isCa) ?? candidates[0];
  const at = outcomes.findIndex((outcome) => 'certificate' in outcome && outcome.certificate === leaf);
  return at <= 0 ? outcomes : [outcomes[at], ...outcomes.slice(0, at), ...outcomes.slice(at + 1)];
}

function maxCertificatesFrom(options: ParseOptions): number {
  const requested = options.maxCertificates;
  // NaN and negative values are mistakes, not limits; the default applies. Infinity means no limit.
  return requested !== undefined && requested >= 0 ? requested : DEFAULT_MAX_CERTIFICATES;
}
