import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { type CertificateParseError, type ParsedCertificate, parseCertificates } from '@certkeeper/domain/x509';
import { CERT_USES, type CertUse } from '../links/endpoint-certificate.entity';

/** An upload carries a certificate, a chain or a small bundle; more is almost surely a mistake. */
export const MAX_UPLOAD_CERTIFICATES = 20;

const HOW_TO_SEND =
  'Send the certificate as PEM text, base64 DER, DER (application/pkix-cert), a PKCS #7 bundle (.p7b, .p7c) or JSON { "pem": "..." }.';

export interface UploadPayload {
  certificates: ParsedCertificate[];
  /** certUse given inside a JSON body, if any. */
  certUse?: CertUse;
}

/**
 * Reads every accepted body form (docs/api-contract.md section 5), PKCS #7 bundles included, and parses it
 * strictly: one bad block refuses the whole upload, so a failed upload changes nothing. The first
 * certificate is the one linked and described: the first of a PEM, the leaf of a PKCS #7 bundle
 * (the certificate that issued none of the others; see parseCertificates).
 */
export class UploadBodyPipe implements PipeTransform<unknown, UploadPayload> {
  transform(body: unknown): UploadPayload {
    return readUploadBody(body);
  }
}

function readUploadBody(body: unknown): UploadPayload {
  let input: string | Uint8Array;
  let certUse: CertUse | undefined;
  if (Buffer.isBuffer(body)) input = body;
  else if (typeof body === 'string') input = body;
  else if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((key) => key !== 'pem' && key !== 'certUse');
    if (unknown.length > 0) throw new BadRequestException(unknown.map((key) => `property ${key} should not exist`));
    if (typeof fields.pem !== 'string' || fields.pem.trim() === '')
      throw new BadRequestException(`pem must be a non-empty string. ${HOW_TO_SEND}`);
    if (fields.certUse !== undefined && !CERT_USES.includes(fields.certUse as CertUse)) {
      throw new BadRequestException(`certUse must be one of the following values: ${CERT_USES.join(', ')}`);
    }
    input = fields.pem;
    certUse = fields.certUse as CertUse | undefined;
  } else {
    throw new BadRequestException(`The request has no certificate. ${HOW_TO_SEND}`);
  }

  const result = parseCertificates(input, { maxCertificates: MAX_UPLOAD_CERTIFICATES });
  if (result.errors.length > 0) {
    const lines = result.errors.map(describeError);
    const tooMany = result.errors.some((error) => error.code === 'too_many');
    throw new BadRequestException(tooMany ? [`At most ${MAX_UPLOAD_CERTIFICATES} certificates per upload.`, ...lines] : lines);
  }
  if (result.certificates.length === 0) throw new BadRequestException(`The request has no certificate. ${HOW_TO_SEND}`);
  return { certificates: result.certificates, certUse };
}

/** Errors about the input as a whole are sentences of their own; the others say which certificate. */
function describeError(error: CertificateParseError): string {
  switch (error.code) {
    case 'empty':
    case 'not_a_certificate':
    case 'too_many':
      return error.message;
    case 'invalid_pkcs7':
      return error.index > 0 ? `block ${error.index + 1}: ${error.message}` : error.message;
    case 'invalid_pem':
    case 'invalid_der':
      if (error.positionInBundle === undefined) return `certificate ${error.index + 1}: ${error.message}`;
      return `certificate ${error.positionInBundle + 1} of the PKCS #7 bundle${error.index > 0 ? ` (block ${error.index + 1})` : ''}: ${error.message}`;
  }
}
