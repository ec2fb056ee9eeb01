import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from './support/test-app';

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
}

/** Every schema object in the description, with where it is. */
function* schemasIn(value: unknown, at = ''): Generator<{ at: string; schema: Record<string, unknown> }> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* schemasIn(item, `${at}/${index}`);
  } else if (value && typeof value === 'object') {
    yield { at, schema: value as Record<string, unknown> };
    for (const [key, item] of Object.entries(value)) yield* schemasIn(item, `${at}/${key}`);
  }
}

describe('OpenAPI description', () => {
  let t: TestApp;
  let document: {
    openapi: string;
    security: unknown[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown>; headers: Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const response = await t.http.get('/api-docs/openapi.json').expect(200);
    document = response.body as typeof document;
  });
  afterAll(() => t.close());

  it('is served publicly and equals the committed apps/api/openapi.json (run `npm run openapi` after API changes)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '../openapi.json'), 'utf8')) as unknown;
    expect(document).toEqual(committed);
    expect(document.openapi).toMatch(/^3\./);
  });

  it('serves the interactive reference at /api-docs/index.html', async () => {
    const response = await t.http.get('/api-docs/index.html').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('swagger-ui');
    await t.http.get('/api-docs/swagger-ui-init.js').expect(200);
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
    );

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every operation a summary and a description', () => {
    for (const { route, op } of operations()) {
      expect({ route, summary: Boolean(op.summary?.trim()), description: Boolean(op.description?.trim()) }).toEqual({
        route,
        summary: true,
        description: true,
      });
    }
  });

  it('declares the bearer scheme with 401 and 403 on every protected operation, none on public ones, and plain-text errors everywhere', () => {
    expect(document.security).toEqual([{ bearer: [] }]);
    const publicRoutes = [
      'POST /api/v1/auth/login',
      'GET /api/v1/health',
      'GET /api/v1/calendar/u/{token}/{file}',
      // OIDC sign-in (docs/api-contract.md section 9).
      'GET /api/v1/auth/oidc',
      'GET /api/v1/auth/oidc/login',
      'GET /api/v1/auth/oidc/callback',
      'POST /api/v1/auth/oidc/exchange',
    ];
    for (const { route, op } of operations()) {
      if (publicRoutes.includes(route)) {
        expect({ route, security: op.security }).toEqual({ route, security: [] });
      } else {
        expect({ route, security: op.security }).toEqual({ route, security: [{ bearer: [] }] });
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 400)
          expect({ route, status, content: Object.keys(response.content ?? {}) }).toEqual({ route, status, content: ['text/plain'] });
      }
    }
  });

  it('defines every schema it references', () => {
    const references = [...JSON.stringify(document).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
    expect(references.length).toBeGreaterThan(0);
    for (const name of new Set(references)) expect(document.components.schemas).toHaveProperty([name]);
  });

  it('describes each upload media type by the body the server reads: PEM and text as a string, DER as binary, JSON as { pem, certUse }', () => {
    for (const route of ['/api/v1/certificates', '/api/v1/endpoints/{id}/certificate']) {
      const content = document.paths[route].post.requestBody?.content ?? {};
      expect({ route, text: content['text/plain'], pem: content['application/x-pem-file'] }).toEqual({
        route,
        text: { schema: { type: 'string' } },
        pem: { schema: { type: 'string' } },
      });
      for (const der of ['application/pkix-cert', 'application/pkcs7-mime', 'application/x-pkcs7-certificates']) {
        expect({ route, der, schema: content[der].schema }).toEqual({ route, der, schema: { type: 'string', format: 'binary' } });
      }
      expect(content['application/json'].schema).toMatchObject({ type: 'object', required: ['pem'] });
    }
  });

  it('lists null among the values of every nullable enum (OpenAPI 3.0)', () => {
    expect(document.openapi).toMatch(/^3\.0\./);
    const nullable = [...schemasIn(document)].filter(({ schema }) => schema.nullable === true && Array.isArray(schema.enum));
    expect(nullable.map(({ at }) => at)).toEqual(
      expect.arrayContaining([
        '/components/schemas/EndpointResponseDto/properties/starttls',
        '/components/schemas/OidcSettingsResponseDto/properties/defaultRole',
      ]),
    );
    for (const { at, schema } of nullable)
      expect({ at, hasNull: (schema.enum as unknown[]).includes(null) }).toEqual({ at, hasNull: true });
  });

  it('declares certUse on the upload route and not its cert_use alias, which generators merge into the same name', () => {
    const names = (document.paths['/api/v1/endpoints/{id}/certificate'].post.parameters ?? []).map((parameter) => parameter.name);
    expect(names).toContain('certUse');
    expect(names).not.toContain('cert_use');
  });

  it('types every whole number as an integer: only the long poll’s seconds and the lifetime fraction are fractional', () => {
    const numbers = [...schemasIn(document)].filter(({ schema }) => schema.type === 'number').map(({ at }) => at);
    expect(numbers).toEqual([
      '/components/schemas/AlertPolicyDto/properties/lifetimeFraction',
      '/components/schemas/UpdateAlertPolicyDto/properties/lifetimeFraction',
      '/paths//api/v1/scanner/work/get/parameters/1/schema',
    ]);
    expect(document.paths['/api/v1/scanner/work'].get.parameters?.[1].name).toBe('wait');
    const integers = [...schemasIn(document)].filter(({ schema }) => schema.type === 'integer');
    for (const { at, schema } of integers)
      expect({ at, format: schema.format }).toEqual({ at, format: expect.stringMatching(/^int(32|64)$/) as unknown });
    expect(integers.filter(({ schema }) => schema.format === 'int64').map(({ at }) => at)).toEqual([
      '/components/headers/X-Total-Count/schema',
      '/components/schemas/PageEnvelopeDto/properties/totalCount',
    ]);
  });

  it('declares X-Request-Id on every response, Retry-After on every 429 and 503, and X-Total-Count on the bare-array lists', () => {
    expect(Object.keys(document.components.headers).sort()).toEqual(['Retry-After', 'X-Request-Id', 'X-Total-Count']);
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
    for (const { route, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        expect({ route, status, requestId: response.headers?.['X-Request-Id'] }).toEqual({ route, status, requestId: ref('X-Request-Id') });
        if (status === '429' || status === '503') {
          expect({ route, status, retryAfter: response.headers?.['Retry-After'] }).toEqual({
            route,
            status,
            retryAfter: ref('Retry-After'),
          });
        }
      }
    }
    for (const route of ['PUT /api/v1/me', 'GET /metrics', 'POST /api/v1/auth/login']) {
      expect({ route, statuses: Object.keys(operations().find((o) => o.route === route)!.op.responses) }).toEqual({
        route,
        statuses: expect.arrayContaining(['429']) as unknown,
      });
    }
    const withTotal = operations()
      .filter(({ op }) => op.responses['200']?.headers?.['X-Total-Count'])
      .map(({ route }) => route)
      .sort();
    expect(withTotal).toEqual([
      'GET /api/v1/certificates',
      'GET /api/v1/certificates/active',
      'GET /api/v1/certificates/expiring',
      'GET /api/v1/discovery/networks/{id}/sweeps',
      'GET /api/v1/endpoints/{id}/history',
      'GET /api/v1/endpoints/{id}/rotations',
      'GET /api/v1/notification-channels/{id}/deliveries',
      'GET /api/v1/root-stores/{id}/anchors',
    ]);
    expect(operations().find((o) => o.route === 'POST /api/v1/alerts/run')?.op.responses['409'].headers?.['Retry-After']).toEqual(
      ref('Retry-After'),
    );
  });

  it('declares every error status that an operation description names, except the per-row codes inside a 200 body', () => {
    const statuses = /\b(400|401|403|404|409|413|415|422|429|500|502|503)\b/g;
    // These name the code each row, result or report gets inside the 200 answer, not the answer's status.
    const perRow: Record<string, string[]> = {
      'POST /api/v1/endpoints/bulk': ['409'],
      'POST /api/v1/scanner/results': ['404'],
      'POST /api/v1/scanner/sweep-reports': ['404', '409'],
    };
    for (const { route, op } of operations()) {
      const named = new Set(op.description?.match(statuses) ?? []);
      const undeclared = [...named].filter((status) => !op.responses[status] && !perRow[route]?.includes(status));
      expect({ route, undeclared }).toEqual({ route, undeclared: [] });
    }
  });
});
