import type { INestApplication } from '@nestjs/common';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { ROUTE_ACCESS, type RouteAccess } from '../common/auth/route-access';
import { tooLargeDescription, UNSUPPORTED_DESCRIPTION } from '../common/http/body-parsing';

interface ResponseObject {
  description: string;
  content?: Record<string, unknown>;
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
  addCommonErrors(document);
  return sortKeys(document);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

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
  for (const pathItem of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (operation?.operationId && publicIds.has(operation.operationId)) operation.security = [];
    }
  }
}

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/**
 * Completes every operation's error responses: 400 everywhere (validation where there is input
 * to reject; elsewhere the pipeline's own refusals), 404 where a path names a resource, 413 and
 * 415 where there is a body (routes with `@AcceptsBody` declare their own), 500 everywhere, and
 * every error body declared as plain text.
 */
function addCommonErrors(document: OpenAPIObject): void {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const responses = operation.responses as unknown as Record<string, ResponseObject>;
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
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400 && !response.content) response.content = plainText(response.description).content;
      }
    }
  }
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
 * than at start-up, where scanning every route costs a few hundred ms (docs/decisions/0014-fast-start.md).
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
