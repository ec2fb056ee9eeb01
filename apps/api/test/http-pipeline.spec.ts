import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { Public } from '../src/common/auth/route-access';
import { PlainTextExceptionFilter } from '../src/common/http/plain-text-exception.filter';
import { JsonLogger } from '../src/common/logging/json-logger';
import { configureHttpPipeline } from '../src/create-app';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

describe('HTTP pipeline', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
  });
  afterAll(() => t.close());

  it('puts X-Request-Id on every response, successes and errors alike', async () => {
    const responses = await Promise.all([
      t.http.get('/api/v1/health'),
      t.http.get('/api/v1/me'),
      t.http.get('/api/v1/no-such-route'),
      t.http.post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{not json'),
    ]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    ids.forEach((id) => expect(id).toMatch(/^[0-9a-f-]{36}$/));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps a well-formed caller's request id and replaces a hostile one", async () => {
    const kept = await t.http.get('/api/v1/health').set('X-Request-Id', 'proxy-1234.abc');
    expect(kept.headers['x-request-id']).toBe('proxy-1234.abc');
    const replaced = await t.http.get('/api/v1/health').set('X-Request-Id', `${'x'.repeat(200)} with spaces`);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with a plain-text 404', async () => {
    const response = await t.http.get('/api/v1/no-such-route').set(bearer(admin)).expect(404);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.text).toContain('Cannot GET /api/v1/no-such-route');
    await t.http.get('/not-even-api').expect(404);
  });

  it('answers validation failures with 400 and one plain-text line per problem', async () => {
    const response = await t.http.post('/api/v1/users').set(bearer(admin)).send({ email: 'nope', role: 'king', extra: 1 }).expect(400);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.text.trim().split('\n').sort()).toEqual([
      'email must be an e-mail address',
      'property extra should not exist',
      'role must be one of the following values: viewer, operator, admin',
    ]);
  });

  it('answers a body that is not JSON, or not an object, with 400', async () => {
    const broken = await t.http.post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{"email": ').expect(400);
    expect(broken.text).toBe('Request body is not valid JSON.\n');
    await t.http.post('/api/v1/auth/login').set('Content-Type', 'application/json').send('"just a string"').expect(400);
    await t.http.post('/api/v1/users').set(bearer(admin)).set('Content-Type', 'application/json').send('[1, 2]').expect(400);
  });

  it('answers a NUL character in a body or URL with 400 instead of letting PostgreSQL fail', async () => {
    const body = await t.http
      .post('/api/v1/users')
      .set(bearer(admin))
      .send({ email: 'a@b.c', role: 'viewer', name: 'nul\u0000name' })
      .expect(400);
    expect(body.text).toBe('Request body contains a NUL character.\n');
    const url = await t.http.get('/api/v1/users?name=a%00b').set(bearer(admin)).expect(400);
    expect(url.text).toBe('The URL contains a NUL character.\n');
  });

  it('refuses a body on a route that takes none, but accepts an empty one or {}', async () => {
    const scanners = (await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as { id: string }[];
    const route = `/api/v1/scanners/${scanners[0].id}/default`;
    const refused = await t.http.post(route).set(bearer(admin)).send({ force: true }).expect(400);
    expect(refused.text).toBe('This route takes no request body.\n');
    await t.http.post(route).set(bearer(admin)).set('Content-Type', 'text/plain').send('garbage').expect(400);
    await t.http.post(route).set(bearer(admin)).send({}).expect(200);
    await t.http.post(route).set(bearer(admin)).expect(200);
  });

  it('answers a body over 1 MiB with 413 and reads nothing of it', async () => {
    const oversized = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1024 * 1024) });
    const response = await t.http.post('/api/v1/auth/login').set('Content-Type', 'application/json').send(oversized).expect(413);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.text).toContain('1 MiB limit');
    // Just under the limit parses (and fails validation on the over-long password instead).
    const fits = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1024 * 1024 - 100) });
    await t.http.post('/api/v1/auth/login').set('Content-Type', 'application/json').send(fits).expect(400);
  });

  it('logs one structured line per request without the Authorization header', async () => {
    const response = await t.http.get('/api/v1/me').set(bearer(admin)).expect(200);
    const line = t.logs.find((entry) => entry.requestId === response.headers['x-request-id'] && entry.context === 'Access');
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/api/v1/me', status: 200 });
    expect(JSON.stringify(t.logs)).not.toContain(admin);
  });

  describe('an unexpected failure', () => {
    @Controller('explode')
    class ExplodingController {
      @Get()
      @Public()
      explode(): never {
        throw new Error('SELECT secret_column FROM hidden_table failed');
      }
    }

    @Module({ controllers: [ExplodingController], providers: [{ provide: APP_FILTER, useClass: PlainTextExceptionFilter }] })
    class ExplodingModule {}

    let app: NestExpressApplication;
    const logs: Record<string, unknown>[] = [];

    beforeAll(async () => {
      const logger = new JsonLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
      app = await NestFactory.create<NestExpressApplication>(ExplodingModule, { bodyParser: false, logger });
      configureHttpPipeline(app);
      await app.init();
    });
    afterAll(() => app.close());

    it('is a 500 naming the request id, with details only in the log', async () => {
      const response = await request(app.getHttpServer()).get('/api/v1/explode').expect(500);
      const requestId = response.headers['x-request-id'];
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.text).toBe(`Internal server error. Request id: ${requestId}\n`);
      expect(response.text).not.toContain('secret_column');
      const logged = logs.find((entry) => entry.level === 'error' && entry.requestId === requestId);
      expect(logged?.msg).toContain('SELECT secret_column FROM hidden_table failed');
      expect(logged?.stack).toEqual(expect.stringContaining('ExplodingController'));
    });
  });
});
