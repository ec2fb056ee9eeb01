import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

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

/** Builds the OpenAPI 3 description deterministically: operationId = controller method name, sorted keys. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Certkeeper API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT, stx_p_ API key or stx_s_ scanner token' })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  addCommonErrors(document);
  return sortKeys(document);
}

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/**
 * Completes every operation's error responses: 400 where there is input to reject, 404 where a
 * path names a resource, 500 everywhere, and every error body declared as plain text.
 */
function addCommonErrors(document: OpenAPIObject): void {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation) continue;
      const responses = operation.responses as unknown as Record<string, ResponseObject>;
      if ((operation.parameters?.length ?? 0) > 0 || operation.requestBody) {
        responses['400'] ??= plainText('The request failed validation; one line per problem.');
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

/** Serves the description at /api-docs/openapi.json and Swagger UI at /api-docs/index.html (both public). */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('api-docs', app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    yamlDocumentUrl: 'api-docs/openapi.yaml',
    customSiteTitle: 'Certkeeper API',
    swaggerOptions: { persistAuthorization: false, displayOperationId: true },
  });
}
