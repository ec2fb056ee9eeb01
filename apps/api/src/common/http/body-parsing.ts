import {
  applyDecorators,
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  type HttpException,
  Injectable,
  type NestInterceptor,
  PayloadTooLargeException,
  SetMetadata,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiPayloadTooLargeResponse, ApiUnsupportedMediaTypeResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import type { Observable } from 'rxjs';

const MiB = 1024 * 1024;
/** Every route that declares nothing else (docs/api-contract.md section 1). */
export const DEFAULT_BODY_LIMIT = 1 * MiB;
/** Certificate uploads and the bulk import (docs/api-contract.md section 1). */
export const UPLOAD_BODY_LIMIT = 10 * MiB;

/** How a route reads its body. Routes without `@AcceptsBody` read JSON (or text) up to DEFAULT_BODY_LIMIT. */
export interface BodyRule {
  /** Most bytes read, counted as they arrive whatever Content-Length says. */
  limit?: number;
  /**
   * The certificate upload forms of docs/api-contract.md section 5: raw DER, and PEM also when labelled
   * `application/x-www-form-urlencoded` (what `curl --data-binary @cert.pem` sends).
   */
  certificates?: boolean;
  /**
   * multipart/form-data is accepted up to this many bytes. The body is read here like any other
   * (so the limit holds however it is sent) and the route's form parser takes it from
   * `multipartBody(req)`.
   */
  multipartLimit?: number;
}

const BODY_RULE = 'certkeeper:body-rule';
const DEFAULT_RULE: BodyRule = {};

/** Declares how a route reads its body, and documents its 413 and 415 answers. */
export function AcceptsBody(rule: BodyRule): MethodDecorator {
  return applyDecorators(
    SetMetadata(BODY_RULE, rule),
    ApiPayloadTooLargeResponse({ description: tooLargeDescription(rule) }),
    ApiUnsupportedMediaTypeResponse({ description: UNSUPPORTED_DESCRIPTION }),
  );
}

/** The 413 of a route, in words for the OpenAPI description. */
export function tooLargeDescription(rule: BodyRule = DEFAULT_RULE): string {
  const limit = `The body is over ${mebibytes(rule.limit ?? DEFAULT_BODY_LIMIT)} MiB`;
  return rule.multipartLimit === undefined ? `${limit}.` : `${limit}, or ${mebibytes(rule.multipartLimit)} MiB as multipart/form-data.`;
}

export const UNSUPPORTED_DESCRIPTION = 'The body is compressed (Content-Encoding), or of a media type the route does not read.';

export function bodyTooLarge(limit: number): PayloadTooLargeException {
  return new PayloadTooLargeException(`Request body is larger than the ${mebibytes(limit)} MiB limit.`);
}

/**
 * Reads the request body once the guard has let the request through, so a request without a
 * valid token costs no more than its headers: a global interceptor runs after the guards and
 * before the pipes, where `@Body()` validation needs the body. (An Express middleware would run
 * before authentication; authenticating in it would duplicate the guard.) It must be the first
 * global interceptor: NoUnexpectedBodyInterceptor looks at what it parsed.
 *
 * A body is either read within the route's limit or refused; none is left unread for Node to
 * drain. Past the limit reading stops at once: body-parser would read the rest of the upload,
 * however long, before answering. Compressed bodies are refused on every route: no route needs
 * them (the agent posts plain JSON on the local network), and inflating is how a few kilobytes
 * become gigabytes.
 */
@Injectable()
export class BodyParsingInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request>();
    if (declaresBody(req)) {
      const rule = this.reflector.get<BodyRule | undefined>(BODY_RULE, context.getHandler()) ?? DEFAULT_RULE;
      await readBody(req, rule);
    }
    return next.handle();
  }
}

async function readBody(req: Request, rule: BodyRule): Promise<void> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw new UnsupportedMediaTypeException('Compressed request bodies (Content-Encoding) are not accepted; send the body uncompressed.');
  }
  const multipartLimit = req.is('multipart/form-data') ? rule.multipartLimit : undefined;
  const limit = multipartLimit ?? rule.limit ?? DEFAULT_BODY_LIMIT;
  if (Number(req.headers['content-length']) > limit) throw bodyTooLarge(limit);
  if (multipartLimit !== undefined) {
    multipartBodies.set(req, await readAtMost(req, limit));
    return;
  }

  const kind = MEDIA.find((media) => (media.certificatesOnly !== true || rule.certificates === true) && req.is(media.types))?.kind;
  if (!kind) {
    const given = (req.headers['content-type'] ?? '').split(';')[0].trim().slice(0, 100) || 'none';
    throw new UnsupportedMediaTypeException(`Content-Type ${given} is not accepted here; send ${advertisedTypes(rule).join(', ')}.`);
  }
  if (kind === 'binary') {
    req.body = await readAtMost(req, limit);
    return;
  }
  const decoder = decoderFor(kind, req.headers['content-type']);
  const text = decoder.decode(await readAtMost(req, limit));
  req.body = kind === 'json' ? parseJson(text) : text;
}

/** The declared charset's decoder: JSON is UTF-8 (RFC 8259), text may be in any encoding browsers know. */
function decoderFor(kind: 'json' | 'text', contentType = ''): TextDecoder {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  let decoder: TextDecoder | undefined;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = undefined;
  }
  if (!decoder || (kind === 'json' && decoder.encoding !== 'utf-8')) {
    throw new UnsupportedMediaTypeException('Request body uses an unsupported charset; send UTF-8.');
  }
  return decoder;
}

const multipartBodies = new WeakMap<IncomingMessage, Buffer>();

/** The multipart/form-data body read for a route that accepts one, for its form parser. */
export function multipartBody(req: IncomingMessage): Buffer | undefined {
  return multipartBodies.get(req);
}

export type BodyKind = 'json' | 'text' | 'binary';

/** Media types by how they are read. */
const MEDIA: { kind: BodyKind; types: string[]; certificatesOnly?: boolean }[] = [
  { kind: 'json', types: ['application/json', 'application/*+json'] },
  // Text is read on every route, so a stray text body gets validation's 400 as it always has.
  { kind: 'text', types: ['text/*'] },
  { kind: 'text', types: ['application/x-pem-file', 'application/x-www-form-urlencoded'], certificatesOnly: true },
  {
    kind: 'binary',
    // DER certificates, and DER PKCS #7 bundles (.p7b/.p7c).
    types: [
      'application/pkix-cert',
      'application/x-x509-ca-cert',
      'application/pkcs7-mime',
      'application/x-pkcs7-certificates',
      'application/octet-stream',
    ],
    certificatesOnly: true,
  },
];

/** How a body of this media type is read, for the OpenAPI description of each type's schema. */
export function bodyKindOf(mediaType: string): BodyKind | undefined {
  const [type] = mediaType.split('/');
  return MEDIA.find((media) => media.types.some((pattern) => pattern === mediaType || pattern === `${type}/*`))?.kind;
}

/** What a 415 tells the client to send instead. */
function advertisedTypes(rule: BodyRule): string[] {
  const types = rule.certificates
    ? ['application/x-pem-file', 'text/plain', 'application/pkix-cert', 'application/json']
    : ['application/json'];
  return rule.multipartLimit === undefined ? types : ['multipart/form-data', ...types];
}

/** The body, up to `limit` bytes. Past it reading stops (the request is paused) and the answer is 413. */
function readAtMost(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error?: HttpException) => {
      req.off('data', onData).off('end', onEnd).off('error', onAborted).off('close', onAborted);
      if (!error) return resolve(Buffer.concat(chunks, received));
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(bodyTooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onAborted = () => finish(new BadRequestException('Request was aborted before its body arrived.'));
    req.on('data', onData).on('end', onEnd).on('error', onAborted).on('close', onAborted);
  });
}

const NUL_IN_JSON = 'Request body contains a NUL character.';

// PostgreSQL text cannot hold NUL; refusing it here turns a would-be 500 into a clear 400.
function refuseNul(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.includes('\u0000')) throw new Error(NUL_IN_JSON);
  return value;
}

/** An object or array, as body-parser's strict mode read it: a bare string or number is a mistake. */
function parseJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = /\S/.exec(text)?.[0];
  try {
    if (first !== '{' && first !== '[') throw new Error('not an object or array');
    return JSON.parse(text, refuseNul);
  } catch (error) {
    throw new BadRequestException(
      error instanceof Error && error.message === NUL_IN_JSON ? NUL_IN_JSON : 'Request body is not valid JSON.',
    );
  }
}

/** A body is coming: an empty one (Content-Length: 0) is no body. */
export function declaresBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function mebibytes(bytes: number): number {
  return Math.round((bytes / MiB) * 10) / 10;
}
