import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { RESULTS_BODY_LIMIT } from '@certkeeper/domain/protocol';
import { Public } from '../src/common/auth/route-access';
import { PlainTextExceptionFilter } from '../src/common/http/plain-text-exception.filter';
import { JsonLogger } from '../src/common/logging/json-logger';
import { configureHttpPipeline } from '../src/create-app';
import { floodUntilCut, repeated, sendRaw } from './support/raw-upload';
import { bearer, createScanner, type TestApp, createSignedInTestApp } from './support/test-app';

const MiB = 1024 * 1024;

describe('HTTP pipeline', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
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
    // Outside the API a GET answers the web interface (web-ui.spec.ts); other methods are the API's 404.
    await t.http.post('/not-even-api').expect(404);
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

  describe('reading bodies only for the caller the route accepts', () => {
    // Far more than the server would buffer before answering, and under the old 64 MiB results limit.
    const UPLOAD = 48 * MiB;
    const RESULTS = '/api/v1/scanner/results';
    const json = { 'Content-Type': 'application/json' };
    let scanner: string;

    beforeAll(async () => {
      scanner = (await createScanner(t)).token;
    });

    const expectRefusedUnread = (answer: { status: number; headers: Record<string, unknown>; text: string; serverRead: number }) => {
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      // The connection is dropped rather than drained, and little beyond the headers was read.
      expect(answer.headers.connection).toBe('close');
      expect(answer.serverRead).toBeLessThan(2 * MiB);
    };

    it('answers a request without a valid token 401 before reading its body', async () => {
      const sized = await sendRaw(t, { path: RESULTS, headers: { ...json, 'Content-Length': UPLOAD }, body: repeated(UPLOAD) });
      expect([sized.status, sized.text]).toEqual([401, 'Missing or malformed Authorization header; expected "Bearer <token>".\n']);
      expectRefusedUnread(sized);
      const chunked = await sendRaw(t, { path: RESULTS, headers: { ...json, ...bearer('stx_s_forged') }, body: repeated(UPLOAD) });
      expect(chunked.status).toBe(401);
      expectRefusedUnread(chunked);
      expect(chunked.sent).toBeLessThan(UPLOAD);
      const gzipped = await sendRaw(t, {
        path: RESULTS,
        headers: { ...json, 'Content-Encoding': 'gzip' },
        body: [gzipSync(Buffer.alloc(UPLOAD, ' ')), ...repeated(UPLOAD)],
      });
      expect(gzipped.status).toBe(401);
      expectRefusedUnread(gzipped);
    });

    it('cuts off a client that keeps sending after the refusal, once it has had a moment to read it', async () => {
      const { answer, cutAfterMs } = await floodUntilCut(
        t,
        `POST ${RESULTS} HTTP/1.1\nHost: certkeeper.test\nContent-Type: application/json\nTransfer-Encoding: chunked`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(cutAfterMs).toBeGreaterThan(500);
      expect(cutAfterMs).toBeLessThan(3000);
    });

    it('answers a token the route refuses 403, and an unknown route 404, without reading the body', async () => {
      const userToken = await sendRaw(t, { path: RESULTS, headers: { ...json, ...bearer(admin) }, body: repeated(UPLOAD) });
      expect(userToken.status).toBe(403);
      expectRefusedUnread(userToken);
      const unknown = await sendRaw(t, { path: '/api/v1/no-such-route', headers: { ...json, ...bearer(admin) }, body: repeated(UPLOAD) });
      expect(unknown.status).toBe(404);
      expectRefusedUnread(unknown);
    });

    it(`answers a scanner's results body over ${RESULTS_BODY_LIMIT / MiB} MiB with 413, declared or counted`, async () => {
      const declared = await sendRaw(t, {
        path: RESULTS,
        headers: { ...json, ...bearer(scanner), 'Content-Length': RESULTS_BODY_LIMIT + 1 },
        body: repeated(RESULTS_BODY_LIMIT + 1),
      });
      expect([declared.status, declared.text]).toEqual([413, `Request body is larger than the ${RESULTS_BODY_LIMIT / MiB} MiB limit.\n`]);
      expectRefusedUnread(declared);

      const chunked = await sendRaw(t, {
        path: RESULTS,
        headers: { ...json, ...bearer(scanner) },
        body: repeated(RESULTS_BODY_LIMIT + 8 * MiB),
      });
      expect(chunked.status).toBe(413);
      expect(chunked.headers.connection).toBe('close');
      // Read up to the limit, then no further.
      expect(chunked.serverRead).toBeGreaterThan(RESULTS_BODY_LIMIT);
      expect(chunked.serverRead).toBeLessThan(RESULTS_BODY_LIMIT + 2 * MiB);
    });

    it('refuses a compressed body with 415 instead of inflating it, and takes Content-Encoding: identity', async () => {
      const login = JSON.stringify({ email: 'admin@certkeeper.test', password: 'admin-password-1' });
      for (const encoding of ['gzip', 'deflate', 'br', 'zstd', 'gzip, identity']) {
        const response = await t.http
          .post('/api/v1/auth/login')
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .send(gzipSync(login));
        expect([response.status, response.text]).toEqual([
          415,
          'Compressed request bodies (Content-Encoding) are not accepted; send the body uncompressed.\n',
        ]);
      }
      await t.http
        .post('/api/v1/auth/login')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'identity')
        .send(login)
        .expect(200);
    });

    it('refuses a body of a media type the route does not read with 415', async () => {
      const form = await t.http.post('/api/v1/users').set(bearer(admin)).type('form').send('email=a@b.c&role=viewer').expect(415);
      expect(form.text).toBe('Content-Type application/x-www-form-urlencoded is not accepted here; send application/json.\n');
      const multipart = await t.http.post('/api/v1/users').set(bearer(admin)).attach('file', Buffer.from('x'), 'x.txt').expect(415);
      expect(multipart.text).toMatch(/^Content-Type multipart\/form-data is not accepted here/);
      // The upload routes read PEM whatever curl labels it, and say what they take.
      const image = await t.http
        .post('/api/v1/certificates')
        .set(bearer(admin))
        .set('Content-Type', 'image/png')
        .send(Buffer.from('x'))
        .expect(415);
      expect(image.text).toBe(
        'Content-Type image/png is not accepted here; send application/x-pem-file, text/plain, application/pkix-cert, application/json.\n',
      );
      await t.http.post('/api/v1/certificates').set(bearer(admin)).type('form').send('not a certificate').expect(400);
      const latin1 = await t.http
        .post('/api/v1/users')
        .set(bearer(admin))
        .set('Content-Type', 'application/json; charset=iso-8859-1')
        .send('{}');
      expect([latin1.status, latin1.text]).toEqual([415, 'Request body uses an unsupported charset; send UTF-8.\n']);
    });
  });

  describe('security headers', () => {
    const expectSecurityHeaders = (headers: Record<string, string>, policy: RegExp) => {
      expect(headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
      expect(headers['content-security-policy']).toMatch(policy);
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      // PUBLIC_URL is unset here.
      expect(headers['strict-transport-security']).toBeUndefined();
    };

    it('are on successes, refusals, unknown routes and the OpenAPI routes alike', async () => {
      const apiPolicy = /^default-src 'none'; frame-ancestors 'none'$/;
      expectSecurityHeaders((await t.http.get('/api/v1/health').expect(200)).headers, apiPolicy);
      expectSecurityHeaders((await t.http.get('/api/v1/me').expect(401)).headers, apiPolicy);
      expectSecurityHeaders((await t.http.get('/api/v1/no-such-route').set(bearer(admin)).expect(404)).headers, apiPolicy);
      expectSecurityHeaders((await t.http.post('/not-even-api').expect(404)).headers, apiPolicy);
      expectSecurityHeaders((await t.http.get('/api/v1/users?name=%00').set(bearer(admin)).expect(400)).headers, apiPolicy);
      expectSecurityHeaders((await t.http.get('/api-docs/openapi.json').expect(200)).headers, /script-src 'self'/);
    });

    it('let the API reference load its own scripts, styles and images, and nothing else', async () => {
      const page = await t.http.get('/api-docs/index.html').expect(200);
      expectSecurityHeaders(
        page.headers,
        /^default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;/,
      );
      // Every script the page loads is a file of its own under /api-docs, which script-src 'self' allows.
      const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attributes of scripts) {
        const src = /src=["']([^"']+)["']/.exec(attributes)?.[1];
        expect(src).toBeDefined();
        const asset = await t.http.get(new URL(src!, `${t.baseUrl}/api-docs/index.html`).pathname).expect(200);
        expect(asset.headers['content-type']).toMatch(/javascript/);
        expect(asset.headers['x-content-type-options']).toBe('nosniff');
      }
      const stylesheets = [...page.text.matchAll(/<link[^>]*href=["']([^"']+\.css)["']/g)].map((match) => match[1]);
      expect(stylesheets.length).toBeGreaterThan(0);
      for (const href of stylesheets) {
        const css = await t.http.get(new URL(href, `${t.baseUrl}/api-docs/index.html`).pathname).expect(200);
        expect(css.headers['content-type']).toMatch(/^text\/css/);
      }
    });
  });

  it('logs one structured line per request without the Authorization header', async () => {
    const response = await t.http.get('/api/v1/me').set(bearer(admin)).expect(200);
    const line = t.logs.find((entry) => entry.requestId === response.headers['x-request-id'] && entry.context === 'Access');
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/api/v1/me', status: 200 });
    expect(JSON.stringify(t.logs)).not.toContain(admin);
  });

  describe('Strict-Transport-Security', () => {
    @Controller('ping')
    class PingController {
      @Get()
      @Public()
      ping(): string {
        return 'pong';
      }
    }

    @Module({ controllers: [PingController], providers: [{ provide: APP_FILTER, useClass: PlainTextExceptionFilter }] })
    class PingModule {}

    const headerWith = async (publicUrl: string | null) => {
      const app = await NestFactory.create<NestExpressApplication>(PingModule, { bodyParser: false, logger: false });
      configureHttpPipeline(app, { publicUrl });
      await app.init();
      try {
        const ok = await request(app.getHttpServer()).get('/api/v1/ping').expect(200);
        const missing = await request(app.getHttpServer()).get('/api/v1/nothing').expect(404);
        expect(missing.headers['strict-transport-security']).toBe(ok.headers['strict-transport-security']);
        return ok.headers['strict-transport-security'];
      } finally {
        await app.close();
      }
    };

    it('is sent only when PUBLIC_URL is https', async () => {
      expect(await headerWith('https://certs.example.com')).toBe('max-age=31536000');
      expect(await headerWith('http://certs.example.com')).toBeUndefined();
      expect(await headerWith(null)).toBeUndefined();
    });
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
      configureHttpPipeline(app, { publicUrl: null });
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
