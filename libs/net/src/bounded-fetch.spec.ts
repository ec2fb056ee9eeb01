import { KeyObject } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mintCertificate } from '@certkeeper/domain/testing';
import { LoopbackServers } from '../testing/loopback-servers';
import { boundedFetch, type BoundedFetchOptions } from './bounded-fetch';
import { parseOutboundDeny } from './outbound-deny';
import { OutboundGuard, type Resolver } from './outbound-guard';

const LIMITS: BoundedFetchOptions = { maxBytes: 1024 * 1024, timeoutMs: 5000, maxRedirects: 5 };
const fetch = (url: string, options: Partial<BoundedFetchOptions> = {}) => boundedFetch(url, { ...LIMITS, ...options });

const loopback = new LoopbackServers();
const listen = loopback.listen.bind(loopback);

const serve = (handler: RequestListener) => loopback.serve(handler);

afterEach(() => loopback.closeAll());

/** /hop/N redirects to /hop/N-1 (relative Location); /hop/0 answers "done". */
function redirectChain(req: IncomingMessage, res: ServerResponse): void {
  const hops = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
  if (hops === 0) return void res.end('done');
  if (Number.isNaN(hops)) return void res.writeHead(404).end();
  res.writeHead(hops % 2 === 0 ? 302 : 307, { location: `/hop/${hops - 1}` }).end();
}

function guardDenying(raw: string, resolver?: Resolver): OutboundGuard {
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new OutboundGuard(parsed.value, resolver);
}

describe('boundedFetch over http', () => {
  it('returns the body, the final URL, the peer and the response headers, asking for no compression', async () => {
    let headers: IncomingMessage['headers'] = {};
    const url = await serve((req, res) => {
      headers = req.headers;
      res.setHeader('retry-after', '120');
      res.end('whole body');
    });
    const result = await fetch(`${url}/doc`, { headers: { 'user-agent': 'test-agent', 'accept-encoding': 'gzip' } });
    expect(result).toEqual({
      ok: true,
      body: Buffer.from('whole body'),
      status: 200,
      finalUrl: `${url}/doc`,
      remoteAddress: '127.0.0.1',
      headers: expect.objectContaining({ 'retry-after': '120' }),
    });
    expect(headers).toMatchObject({ 'user-agent': 'test-agent', 'accept-encoding': 'identity' });
  });

  it('follows redirects within the limit, and names the redirecting hop beyond it', async () => {
    const url = await serve(redirectChain);
    await expect(fetch(`${url}/hop/5`)).resolves.toMatchObject({ ok: true, finalUrl: `${url}/hop/0` });
    await expect(fetch(`${url}/hop/6`)).resolves.toEqual({
      ok: false,
      failure: { kind: 'too-many-redirects', status: 307 },
      finalUrl: `${url}/hop/1`,
    });
    await expect(fetch(`${url}/hop/1`, { maxRedirects: 0 })).resolves.toMatchObject({ ok: false, failure: { kind: 'too-many-redirects' } });
  });

  it('POSTs the body with its length, succeeds on any 2xx and follows no redirect when given none', async () => {
    const received: { method?: string; length?: string; body: string }[] = [];
    let status = 202;
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ method: req.method, length: req.headers['content-length'], body: Buffer.concat(chunks).toString() });
        res.writeHead(status, status === 302 ? { location: '/elsewhere' } : {}).end();
      });
    });
    const post = () => fetch(`${url}/hook`, { method: 'POST', body: '{"a":1}', maxRedirects: 0 });
    await expect(post()).resolves.toMatchObject({ ok: true, status: 202, body: Buffer.alloc(0) });
    status = 204;
    await expect(post()).resolves.toMatchObject({ ok: true, status: 204 });
    status = 302;
    await expect(post()).resolves.toMatchObject({ ok: false, failure: { kind: 'too-many-redirects', status: 302 } });
    status = 500;
    await expect(post()).resolves.toMatchObject({ ok: false, failure: { kind: 'http-status', status: 500 } });
    expect(received).toHaveLength(4);
    expect(received[0]).toEqual({ method: 'POST', length: '7', body: '{"a":1}' });
  });

  it('reads only 200 as success for a GET', async () => {
    const url = await serve((_req, res) => res.writeHead(202).end('accepted'));
    await expect(fetch(url)).resolves.toMatchObject({ ok: false, failure: { kind: 'http-status', status: 202 } });
  });

  it.each(['file:///etc/passwd', 'ftp://ftp.example.org/metadata.xml', 'javascript:alert(1)'])(
    'refuses a redirect to %s, files even when files are allowed',
    async (target) => {
      const url = await serve((_req, res) => res.writeHead(302, { location: target }).end());
      await expect(fetch(url, { allowFile: true })).resolves.toEqual({
        ok: false,
        failure: { kind: 'redirect-protocol', target: new URL(target) },
        finalUrl: `${url}/`,
      });
    },
  );

  it('refuses a redirect without Location', async () => {
    const url = await serve((_req, res) => res.writeHead(301).end());
    await expect(fetch(url)).resolves.toMatchObject({ ok: false, failure: { kind: 'redirect-without-location' } });
  });

  it.each([
    [404, 'Not Found'],
    [204, 'No Content'],
    [206, 'Partial Content'],
    [300, 'Multiple Choices'],
  ])('reads only a 200: HTTP %i is a failure', async (status, statusMessage) => {
    const url = await serve((_req, res) => res.writeHead(status, { location: '/elsewhere' }).end());
    await expect(fetch(url)).resolves.toEqual({ ok: false, failure: { kind: 'http-status', status, statusMessage }, finalUrl: `${url}/` });
  });

  it('drops the connection once a streamed body passes maxBytes', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    let serverSawClose!: Promise<boolean>;
    const url = await serve((_req, res) => {
      // No Content-Length: chunked encoding, so only counting can catch it.
      serverSawClose = new Promise((resolve) => res.on('close', () => resolve(!res.writableFinished)));
      const pump = () => {
        while (!res.destroyed && written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await expect(fetch(url, { maxBytes: 256 * 1024 })).resolves.toEqual({ ok: false, failure: { kind: 'too-large' }, finalUrl: `${url}/` });
    await expect(serverSawClose).resolves.toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a declared Content-Length over maxBytes, and takes a body of exactly maxBytes', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-length': 1000 }).end('x'.repeat(1000)));
    await expect(fetch(url, { maxBytes: 999 })).resolves.toMatchObject({ ok: false, failure: { kind: 'too-large' } });
    await expect(fetch(url, { maxBytes: 1000 })).resolves.toMatchObject({ ok: true, body: Buffer.from('x'.repeat(1000)) });
  });

  it('refuses a compressed body', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not really gzip'));
    await expect(fetch(url)).resolves.toMatchObject({ ok: false, failure: { kind: 'content-encoding', encoding: 'gzip' } });
  });

  it('never passes a body cut short for a whole one', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': 100 });
      res.write('x'.repeat(40), () => res.destroy());
    });
    await expect(fetch(url)).resolves.toEqual({
      ok: false,
      failure: { kind: 'cut-short', received: 40, declared: 100 },
      finalUrl: `${url}/`,
    });
  });

  it('gives up at the deadline, whether the server says nothing or stalls mid-body', async () => {
    const silent = await listen(createTcpServer(() => undefined));
    const started = Date.now();
    await expect(fetch(silent, { timeoutMs: 300 })).resolves.toEqual({ ok: false, failure: { kind: 'timeout' }, finalUrl: `${silent}/` });
    expect(Date.now() - started).toBeLessThan(3000);
    const stalling = await serve((_req, res) => res.writeHead(200).write('the start'));
    await expect(fetch(stalling, { timeoutMs: 300 })).resolves.toMatchObject({ ok: false, failure: { kind: 'timeout' } });
  });

  it('stops when the caller cancels', async () => {
    const url = await listen(createTcpServer(() => undefined));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(fetch(url, { signal: controller.signal })).resolves.toMatchObject({ ok: false, failure: { kind: 'cancelled' } });
  });

  it('reports a refused connection with its code', async () => {
    const url = await serve(() => undefined);
    await loopback.closeLast();
    await expect(fetch(url)).resolves.toMatchObject({ ok: false, failure: { kind: 'network', code: 'ECONNREFUSED' }, finalUrl: `${url}/` });
  });

  it.each([
    ['ftp://ftp.example.org/x', { kind: 'unsupported-protocol', protocol: 'ftp:' }],
    ['file:///etc/passwd', { kind: 'unsupported-protocol', protocol: 'file:' }],
    ['not a url', { kind: 'invalid-url' }],
  ])('refuses to start from %s', async (url, failure) => {
    await expect(fetch(url)).resolves.toEqual({ ok: false, failure, finalUrl: null });
  });
});

describe('boundedFetch of a file (allowFile)', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'bounded-fetch-'));
    await writeFile(join(scratch, 'roots.csv'), 'a,b\n');
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it('reads a file whole, within maxBytes', async () => {
    const url = pathToFileURL(join(scratch, 'roots.csv')).href;
    await expect(fetch(url, { allowFile: true })).resolves.toEqual({
      ok: true,
      body: Buffer.from('a,b\n'),
      status: null,
      finalUrl: url,
      remoteAddress: null,
      headers: {},
    });
    await expect(fetch(url, { allowFile: true, maxBytes: 3 })).resolves.toMatchObject({ ok: false, failure: { kind: 'too-large' } });
  });

  it('says when the file is missing or not a file', async () => {
    await expect(fetch(pathToFileURL(join(scratch, 'absent')).href, { allowFile: true })).resolves.toMatchObject({
      ok: false,
      failure: { kind: 'file-missing' },
    });
    await expect(fetch(pathToFileURL(scratch).href, { allowFile: true })).resolves.toMatchObject({
      ok: false,
      failure: { kind: 'not-a-file' },
    });
  });
});

describe('boundedFetch with an OUTBOUND_DENY guard', () => {
  /** Serves "ok" and counts the requests it saw. */
  const countingServer = async (host = '127.0.0.1') => {
    const seen = { requests: 0 };
    const url = await listen(
      createServer((_req, res) => {
        seen.requests += 1;
        res.end('ok');
      }),
      'http',
      host,
    );
    return { url, seen };
  };
  const redirectingTo = (location: string) => serve((_req, res) => res.writeHead(302, { location }).end());

  it('refuses a denied address without connecting', async () => {
    const { url, seen } = await countingServer();
    await expect(fetch(url, { guard: guardDenying('127.0.0.0/8') })).resolves.toEqual({
      ok: false,
      failure: { kind: 'refused', message: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8' },
      finalUrl: `${url}/`,
    });
    expect(seen.requests).toBe(0);
  });

  it('catches an IPv4-mapped IPv6 literal', async () => {
    const { url } = await countingServer();
    const result = await fetch(url.replace('127.0.0.1', '[::ffff:127.0.0.1]'), { guard: guardDenying('127.0.0.0/8') });
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/^refused by OUTBOUND_DENY: ::ffff:\S+ is in 127\.0\.0\.0\/8$/),
    });
  });

  it('checks every hop: a redirect to a denied address is refused at that hop, and the last hop gives the peer', async () => {
    const denied = await countingServer('127.0.0.2');
    const start = await redirectingTo(`${denied.url}/doc`);
    await expect(fetch(start, { guard: guardDenying('127.0.0.2/32') })).resolves.toEqual({
      ok: false,
      failure: { kind: 'refused', message: 'refused by OUTBOUND_DENY: 127.0.0.2 is in 127.0.0.2/32' },
      finalUrl: `${denied.url}/doc`,
    });
    expect(denied.seen.requests).toBe(0);
    await expect(fetch(start, { guard: OutboundGuard.DEFAULT })).resolves.toMatchObject({ ok: true, remoteAddress: '127.0.0.2' });
  });

  it('refuses a name that resolves to a denied address, and dials only what it checked', async () => {
    const denied = await countingServer('127.0.0.2');
    const port = new URL(denied.url).port;
    const start = new URL(await redirectingTo(`http://evil.test:${port}/doc`));
    const table: Record<string, string> = { 'idp.test': '127.0.0.1', 'evil.test': '127.0.0.2' };
    const resolver: Resolver = (hostname) =>
      Promise.resolve(hostname in table ? [{ address: table[hostname], family: 4 } satisfies LookupAddress] : []);
    await expect(fetch(`http://idp.test:${start.port}/`, { guard: guardDenying('127.0.0.2/32', resolver) })).resolves.toEqual({
      ok: false,
      failure: { kind: 'refused', message: 'refused by OUTBOUND_DENY: evil.test resolves to 127.0.0.2, which is in 127.0.0.2/32' },
      finalUrl: `http://evil.test:${port}/doc`,
    });
    expect(denied.seen.requests).toBe(0);
  });
});

describe('boundedFetch over https', () => {
  let httpsUrl: string;

  beforeEach(async () => {
    const minted = await mintCertificate({ subject: 'CN=127.0.0.1', sans: ['127.0.0.1'] });
    const key = KeyObject.from(minted.keys.privateKey).export({ format: 'pem', type: 'pkcs8' });
    httpsUrl = await listen(
      createHttpsServer({ key, cert: minted.pem }, (req, res) => {
        if (req.url === '/down') return void res.writeHead(302, { location: 'http://127.0.0.1:9/doc' }).end();
        res.end('secure');
      }),
      'https',
    );
  });

  it('verifies the certificate unless told not to', async () => {
    const verified = await fetch(`${httpsUrl}/doc`);
    expect(!verified.ok && verified.failure).toMatchObject({ kind: 'network', message: expect.stringMatching(/self[- ]signed/) });
    await expect(fetch(`${httpsUrl}/doc`, { insecureTls: true })).resolves.toMatchObject({ ok: true, body: Buffer.from('secure') });
  });

  it('refuses a redirect from https down to http', async () => {
    await expect(fetch(`${httpsUrl}/down`, { insecureTls: true })).resolves.toEqual({
      ok: false,
      failure: { kind: 'redirect-downgrade', target: new URL('http://127.0.0.1:9/doc') },
      finalUrl: `${httpsUrl}/down`,
    });
  });
});
