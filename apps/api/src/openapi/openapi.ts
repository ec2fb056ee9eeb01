import type { INestApplication } from '@nestjs/common';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { ROUTE_ACCESS, type RouteAccess } from '../common/auth/route-access';
import { bodyKindOf, tooLargeDescription, UNSUPPORTED_DESCRIPTION } from '../common/http/body-parsing';
import { headerRef, RESPONSE_HEADERS } from '../common/http/response-headers';

interface ResponseObject {
  description: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

export const OPENAPI_JSON_PATH = 'api-docs/openapi.json';

const DESCRIPTION = [
  'Certkeeper tracks X.509 certificates and warns people before they expire.',
  '',
  'Send `Authorization: Bearer <token>` with a JWT from `POST /api/v1/auth/login`, an API key',
  '(`stx_p_...`) or, on `/api/v1/scanner/*` only, a scanner token (`stx_s_...`).',
  'Error bodies are `text/plain`: one short sentence, one line per validation problem.',
  'Every response carries `X-Request-Id`.',
].join('\n');

/**
 * Builds the OpenAPI 3 description deterministically: operationId = controller method name, sorted keys.
 * Every operation needs the bearer scheme (the document's `security`) except the public ones,
 * which declare `security: []`.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Certkeeper API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    // Relative: the paths are served by whichever host serves this description.
    .addServer('/', 'The server that serves this description.')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT, stx_p_ API key or stx_s_ scanner token' })
    .addSecurityRequirements('bearer')
    .build();
  // The package is private (UNLICENSED in package.json); there is no licence text to link to.
  config.info.license = { name: 'Proprietary' };
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  declarePublicOperations(document, publicOperationIds(app));
  describeBodiesByMediaType(document);
  addCommonErrors(document);
  declareResponseHeaders(document);
  completeSchemas(document);
  return sortKeys(document);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;

/** Every operation of the document, with its path. */
function* operationsOf(document: OpenAPIObject): Generator<{ path: string; operation: OperationObject }> {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (operation) yield { path, operation };
    }
  }
}

const responsesOf = (operation: OperationObject) => operation.responses as unknown as Record<string, ResponseObject>;

/**
 * The operationIds (method names) of the handlers declared `@Public()`, read from the same
 * route-access metadata the guard obeys, so the description cannot disagree with it.
 * (@nestjs/swagger has no decorator for an empty requirement: `ApiSecurity` only adds schemes, and
 * `@ApiOperation({ security: [] })` inside `Public()` would depend on decorator order, since each
 * `@ApiOperation` on a method overwrites the summary of the one applied before it.)
 */
function publicOperationIds(app: INestApplication): Set<string> {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const ids = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      const controller = metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, (...args: unknown[]) => unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const access = reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [prototype[name], controller]);
        if (access?.kind === 'public') ids.add(name);
      }
    }
  }
  return ids;
}

/** `security: []` overrides the document's bearer requirement: these routes take no token. */
function declarePublicOperations(document: OpenAPIObject, publicIds: Set<string>): void {
  for (const { operation } of operationsOf(document)) {
    if (operation.operationId && publicIds.has(operation.operationId)) operation.security = [];
  }
}

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/**
 * Completes every operation's error responses: 400 everywhere (validation where there is input
 * to reject; elsewhere the pipeline's own refusals), 404 where a path names a resource, 413 and
 * 415 where there is a body (routes with `@AcceptsBody` declare their own), 500 and 503 everywhere, and
 * every error body declared as plain text.
 */
function addCommonErrors(document: OpenAPIObject): void {
  for (const { path, operation } of operationsOf(document)) {
    const responses = responsesOf(operation);
    if ((operation.parameters?.length ?? 0) > 0 || operation.requestBody) {
      responses['400'] ??= plainText('The request failed validation; one line per problem.');
    }
    // refuseNulInUrl and NoUnexpectedBodyInterceptor answer these on every route.
    responses['400'] ??= plainText('The URL contains a NUL character, or the request has a non-empty body and this route takes none.');
    if (operation.requestBody) {
      responses['413'] ??= plainText(tooLargeDescription());
      responses['415'] ??= plainText(UNSUPPORTED_DESCRIPTION);
    }
    if (path.includes('{')) responses['404'] ??= plainText('No such resource.');
    responses['500'] ??= plainText('Unexpected failure; the body names the request id to find in the logs.');
    // The exception filter answers any route whose database query cannot reach the database so.
    responses['503'] ??= plainText('The database is unreachable; try again after `Retry-After` seconds.');
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 400 && !response.content) response.content = plainText(response.description).content;
    }
  }
}

/**
 * A body sent as PEM or text is a string, one sent as DER a binary string: only `application/json`
 * carries the object `@ApiBody` describes (docs/api-contract.md section 5). The schema of each media
 * type follows from how body-parsing reads it, so the two cannot disagree.
 */
function describeBodiesByMediaType(document: OpenAPIObject): void {
  for (const { operation } of operationsOf(document)) {
    const content = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
    for (const [mediaType, media] of Object.entries(content ?? {})) {
      const kind = bodyKindOf(mediaType);
      if (kind === 'text') media.schema = { type: 'string' };
      if (kind === 'binary') media.schema = { type: 'string', format: 'binary' };
    }
  }
}

/**
 * The headers every response, or every response of a kind, carries: `X-Request-Id` on all of them,
 * `Retry-After` on every 429 and 503. Each is a reusable component; routes declare the others
 * (`X-Total-Count`, the `Retry-After` of a 409) themselves.
 */
function declareResponseHeaders(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: { ...RESPONSE_HEADERS } };
  for (const { operation } of operationsOf(document)) {
    for (const [status, response] of Object.entries(responsesOf(operation))) {
      const headers: Record<string, unknown> = { ...response.headers, 'X-Request-Id': headerRef('X-Request-Id') };
      if (status === '429' || status === '503') headers['Retry-After'] = headerRef('Retry-After');
      response.headers = headers;
    }
  }
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Walks every schema of the document:
 * - a nullable enum lists `null` among its values: in OpenAPI 3.0 `nullable: true` alone does not
 *   admit null past an `enum`, and strict generators then type the field without it;
 * - an integer without a format is `int32` unless its declared bounds go past 32 bits (`int64`);
 *   a value that may outgrow them without bounds (a total count of rows) declares `int64` itself.
 */
function completeSchemas(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(completeSchemas);
  if (!value || typeof value !== 'object') return;
  const schema = value as { type?: unknown; format?: unknown; nullable?: unknown; enum?: unknown[]; minimum?: number; maximum?: number };
  // A new array: the decorators' enum arrays are the code's own constants, shared by other schemas.
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  if (schema.type === 'integer' && schema.format === undefined) {
    schema.format = (schema.minimum ?? 0) >= INT32.min && (schema.maximum ?? 0) <= INT32.max ? 'int32' : 'int64';
  }
  Object.values(value).forEach(completeSchemas);
}

export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    ) as T;
  }
  return value;
}

const DOCS_ASSETS_ECHO = '/api-docs/api-docs/';

/**
 * Serves the description at /api-docs/openapi.json and Swagger UI at /api-docs/index.html (both public).
 * Given `() => buildOpenApiDocument(app)`, the document is built at the first request for it rather
 * than at start-up, where scanning every route would delay the start (its cost: docs/decisions/0014-fast-start.md).
 */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject | (() => OpenAPIObject)): void {
  // The page asks for its assets as ./api-docs/swagger-ui.css: right from /api-docs, but from
  // /api-docs/index.html that is /api-docs/api-docs/..., which @nestjs/swagger does not serve.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (req.url.startsWith(DOCS_ASSETS_ECHO)) req.url = req.url.slice('/api-docs'.length);
    next();
  });
  SwaggerModule.setup('api-docs', app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    yamlDocumentUrl: 'api-docs/openapi.yaml',
    customSiteTitle: 'Certkeeper API',
    swaggerOptions: { persistAuthorization: false, displayOperationId: true },
  });
}
