import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from './support/test-app';

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}

describe('OpenAPI description', () => {
  let t: TestApp;
  let document: {
    openapi: string;
    security: unknown[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
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
});
