import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { isServerPath, serveWebInterface } from './web-interface';

/** An Express app with the web interface in front of a stand-in for the API's router. */
function appServing(root: string) {
  const app = express();
  serveWebInterface(app, root);
  app.use((req, res) => res.status(404).type('text/plain').send(`Cannot ${req.method} ${req.path}`));
  return app;
}

describe('serving the web interface', () => {
  let bundle: string;

  beforeAll(() => {
    bundle = mkdtempSync(join(tmpdir(), 'web-bundle-'));
    mkdirSync(join(bundle, 'assets'));
    writeFileSync(join(bundle, 'index.html'), '<!doctype html><title>Certkeeper</title>');
    writeFileSync(join(bundle, 'assets', 'index-abc123.js'), 'console.log(1);');
    writeFileSync(join(bundle, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  });
  afterAll(() => rmSync(bundle, { recursive: true, force: true }));

  it('caches hashed assets for good and revalidates everything else', async () => {
    const app = appServing(bundle);
    const asset = await request(app).get('/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    const icon = await request(app).get('/favicon.svg').expect(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it("answers index.html for the app's own paths, never cached", async () => {
    const app = appServing(bundle);
    for (const path of ['/', '/endpoints', '/endpoints/8d0c7a0e-0000-4000-8000-000000000000', '/login?redirect=%2Fendpoints']) {
      const page = await request(app).get(path).expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.text).toContain('<title>Certkeeper</title>');
    }
    await request(app).head('/endpoints').expect(200);
  });

  it('leaves the API, its reference, the metrics and other methods to the server', async () => {
    const app = appServing(bundle);
    for (const path of ['/api', '/api/v1/no-such-route', '/api-docs/index.html', '/metrics']) {
      expect((await request(app).get(path).expect(404)).text).toBe(`Cannot GET ${path}`);
    }
    expect((await request(app).post('/endpoints').expect(404)).text).toBe('Cannot POST /endpoints');
  });

  it('answers a missing bundle file with 404 rather than the page', async () => {
    const missing = await request(appServing(bundle)).get('/assets/index-gone.js').expect(404);
    expect(missing.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('says how to build the interface when the bundle is missing', async () => {
    const app = appServing(join(bundle, 'not-built'));
    const note = await request(app).get('/').expect(404);
    expect(note.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(note.text).toContain('npm run build');
    await request(app).get('/api/v1/health').expect(404, 'Cannot GET /api/v1/health');
  });

  it('tells server paths from the interface by their first segment', () => {
    expect(['/api', '/api/v1/me', '/api-docs', '/api-docs/x', '/metrics'].every(isServerPath)).toBe(true);
    expect(['/', '/apis', '/api-docsx', '/metricsx', '/endpoints'].some(isServerPath)).toBe(false);
  });
});
