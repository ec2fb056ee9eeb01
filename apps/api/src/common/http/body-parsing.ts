import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { sendPlainText } from './plain-text';

const MiB = 1024 * 1024;
export const DEFAULT_BODY_LIMIT = 1 * MiB;
export const LARGE_BODY_LIMIT = 10 * MiB;
/** A scanner's batch may carry SAML metadata documents of several MiB each. */
export const SCANNER_RESULTS_LIMIT = 64 * MiB;
const SCANNER_RESULTS_ROUTE = /^\/api\/v1\/scanner\/results\/?$/;

/** Routes that take certificate bundles or bulk imports get the larger limit (CONTRACT section 1). */
const LARGE_BODY_ROUTES: readonly RegExp[] = [
  /^\/api\/v1\/endpoints\/bulk\/?$/,
  /^\/api\/v1\/endpoints\/[^/]+\/certificate\/?$/,
  /^\/api\/v1\/certificates\/?$/,
  /^\/api\/v1\/root-stores\/import\/?$/,
];

const CERTIFICATE_MEDIA_TYPES = ['application/pkix-cert', 'application/x-x509-ca-cert', 'application/octet-stream'];

const NUL_IN_JSON = 'Request body contains a NUL character.';

// PostgreSQL text cannot hold NUL; refusing it here turns a would-be 500 into a clear 400.
function refuseNul(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.includes('\u0000')) throw new Error(NUL_IN_JSON);
  return value;
}

const TEXT_MEDIA_TYPES = ['text/*', 'application/x-pem-file'];
// `curl --data-binary @cert.pem` labels the PEM as a form; the upload routes read it as text.
const UPLOAD_TEXT_MEDIA_TYPES = [...TEXT_MEDIA_TYPES, 'application/x-www-form-urlencoded'];

function parsersWithLimit(limit: number, textTypes: string[]): RequestHandler[] {
  return [
    express.json({ limit, type: ['application/json', 'application/*+json'], reviver: refuseNul }),
    express.text({ limit, type: textTypes }),
    express.raw({ limit, type: CERTIFICATE_MEDIA_TYPES }),
  ];
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

function describeParseFailure(error: BodyParserError, limit: number): { status: number; message: string } {
  switch (error.type ?? 'unknown') {
    case 'entity.too.large':
      return { status: 413, message: `Request body is larger than the ${limit / MiB} MiB limit.` };
    case 'entity.parse.failed':
      return { status: 400, message: error.message === NUL_IN_JSON ? NUL_IN_JSON : 'Request body is not valid JSON.' };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, message: 'Request body uses an unsupported encoding.' };
    case 'request.aborted':
      return { status: 400, message: 'Request was aborted before its body arrived.' };
    default:
      return {
        status: error.status && error.status >= 400 && error.status < 500 ? error.status : 400,
        message: 'Request body could not be read.',
      };
  }
}

/**
 * Parses JSON, text and DER bodies with a size limit chosen by route, answering parse failures
 * in plain text before any route runs.
 */
export function bodyParsing(): RequestHandler {
  const small = parsersWithLimit(DEFAULT_BODY_LIMIT, TEXT_MEDIA_TYPES);
  const large = parsersWithLimit(LARGE_BODY_LIMIT, UPLOAD_TEXT_MEDIA_TYPES);
  const scannerResults = parsersWithLimit(SCANNER_RESULTS_LIMIT, TEXT_MEDIA_TYPES);
  return (req: Request, res: Response, next: NextFunction) => {
    if (/%00/i.test(req.url)) {
      sendPlainText(res, 400, 'The URL contains a NUL character.');
      return;
    }
    const isResults = SCANNER_RESULTS_ROUTE.test(req.path);
    const wantsLarge = LARGE_BODY_ROUTES.some((route) => route.test(req.path));
    const [parsers, limit] = isResults
      ? [scannerResults, SCANNER_RESULTS_LIMIT]
      : wantsLarge
        ? [large, LARGE_BODY_LIMIT]
        : [small, DEFAULT_BODY_LIMIT];
    const runFrom = (index: number): void => {
      const parser = parsers[index];
      if (!parser) return next();
      parser(req, res, (error?: unknown) => {
        if (error) {
          const { status, message } = describeParseFailure(error as BodyParserError, limit);
          sendPlainText(res, status, message);
          return;
        }
        runFrom(index + 1);
      });
    };
    runFrom(0);
  };
}
