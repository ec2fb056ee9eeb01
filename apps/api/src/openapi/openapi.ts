import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

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
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'JWT, API key (stx_p_...) or scanner token (stx_s_...).' })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  addCommonErrors(document);
  return sortKeys(document);
}

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** Errors any operation can produce: bad input and unexpected failure, both plain text. */
function addCommonErrors(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation) continue;
      operation.responses['400'] ??= plainText('The request failed validation; one line per problem.');
      operation.responses['500'] ??= plainText('Unexpected failure; the body names the request id to find in the logs.');
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
    customSiteTitle: 'Certkeeper API',
    swaggerOptions: { persistAuthorization: false, displayOperationId: true },
  });
}
