import { createHash, KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { mintCertificate } from '@certkeeper/domain/testing';
import { OutboundGuard, parseOutboundDeny } from '@certkeeper/net';
import { fetchSamlMetadata as fetchUnguarded, type SamlFetchOptions } from './saml-fetch';
import { LoopbackServers, testOutboundGuard } from '@certkeeper/net/testing';

// Through OUTBOUND_DENY as the test run sets it, like the agent (testOutboundGuard, @certkeeper/net/testing).
const fetchSamlMetadata = (url: string, options: SamlFetchOptions & { insecureTls?: boolean } = {}) =>
  fetchUnguarded(url, { guard: testOutboundGuard(), ...options });

// The transport itself (byte counting, deadlines, redirect checks, the guard on every hop) is
// boundedFetch's, tested in libs/net/src/bounded-fetch.spec.ts; these tests pin what the agent
// records: the document, its digest and the sentences of each failure.
const METADATA = `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.org/ä"/>
`;

const loopback = new LoopbackServers();
const listen = loopback.listen.bind(loopback);

const serve = (handler: RequestListener) => loopback.serve(handler);

afterEach(() => loopback.closeAll());

function sendMetadata(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
  res.end(METADATA);
}

/** /hop/N redirects to /hop/N-1 (relative Location); /hop/0 serves the document. */
function redirectChain(req: IncomingMessage, res: ServerResponse): void {
  const hops = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
  if (hops === 0) return sendMetadata(res);
  if (Number.isNaN(hops)) return void res.writeHead(404).end();
  res.writeHead(hops % 2 === 0 ? 302 : 307, { location: `/hop/${hops - 1}` }).end();
}

describe('fetchSamlMetadata over http', () => {
  it('returns the document, its byte count and the SHA-256 of its bytes', async () => {
    const url = await serve((_req, res) => sendMetadata(res));
    const bytes = Buffer.from(METADATA, 'utf8');
    await expect(fetchSamlMetadata(`${url}/metadata.xml`)).resolves.toEqual({
      ok: true,
      finalUrl: `${url}/metadata.xml`,
      remoteAddress: '127.0.0.1',
      document: METADATA,
      digest: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
    });
  });

  it('keeps a byte order mark, so the document encodes back to the bytes digested', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(METADATA)]);
    const url = await serve((_req, res) => res.end(bytes));
    const result = await fetchSamlMetadata(url);
    if (!result.ok) throw new Error(result.error);
    expect(createHash('sha256').update(result.document, 'utf8').digest('hex')).toBe(result.digest);
  });

  it('follows a redirect chain within the limit and reports the final URL', async () => {
    const url = await serve(redirectChain);
    await expect(fetchSamlMetadata(`${url}/hop/5`, { maxRedirects: 5 })).resolves.toMatchObject({
      ok: true,
      finalUrl: `${url}/hop/0`,
      document: METADATA,
    });
  });

  it('gives up on a redirect chain beyond the limit', async () => {
    const url = await serve(redirectChain);
    await expect(fetchSamlMetadata(`${url}/hop/6`)).resolves.toEqual({
      ok: false,
      error: 'more than 5 redirects',
      finalUrl: `${url}/hop/1`,
    });
    await expect(fetchSamlMetadata(`${url}/hop/1`, { maxRedirects: 0 })).resolves.toMatchObject({
      ok: false,
      error: 'more than 0 redirects',
    });
  });

  it.each(['file:///etc/passwd', 'ftp://ftp.example.org/metadata.xml', 'javascript:alert(1)'])(
    'refuses a redirect to %s',
    async (target) => {
      const url = await serve((_req, res) => res.writeHead(302, { location: target }).end());
      const result = await fetchSamlMetadata(url);
      expect(result).toMatchObject({ ok: false, finalUrl: `${url}/` });
      expect(!result.ok && result.error).toContain(`a redirect to ${new URL(target).protocol}`);
    },
  );

  it('refuses a redirect without Location', async () => {
    const url = await serve((_req, res) => res.writeHead(301).end());
    await expect(fetchSamlMetadata(url)).resolves.toMatchObject({ ok: false, error: 'a redirect without a Location header' });
  });

  it.each([
    [404, 'the server answered HTTP 404 Not Found'],
    [500, 'the server answered HTTP 500 Internal Server Error'],
    [204, 'the server answered HTTP 204 No Content'],
  ])('reports HTTP %i by its status', async (status, error) => {
    const url = await serve((_req, res) => res.writeHead(status).end());
    await expect(fetchSamlMetadata(`${url}/metadata.xml`)).resolves.toEqual({ ok: false, error, finalUrl: `${url}/metadata.xml` });
  });

  it('refuses a declared Content-Length over maxBytes without reading the body', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-length': 1000 }).end('x'.repeat(1000)));
    await expect(fetchSamlMetadata(url, { maxBytes: 999 })).resolves.toMatchObject({
      ok: false,
      error: 'the document is larger than 999 bytes',
    });
    await expect(fetchSamlMetadata(url, { maxBytes: 1000 })).resolves.toMatchObject({ ok: true, bytes: 1000 });
  });

  it('refuses a compressed body, whose size says nothing of the document', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not really gzip'));
    await expect(fetchSamlMetadata(url)).resolves.toMatchObject({
      ok: false,
      error: 'the server sent the document with Content-Encoding gzip',
    });
  });

  it('gives up within the deadline on a server that accepts the connection and says nothing', async () => {
    const url = await listen(createTcpServer(() => undefined));
    const started = Date.now();
    await expect(fetchSamlMetadata(url, { timeoutMs: 300 })).resolves.toEqual({
      ok: false,
      error: 'no complete answer within 300 ms',
      finalUrl: `${url}/`,
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stops when the caller cancels', async () => {
    const url = await listen(createTcpServer(() => undefined));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(fetchSamlMetadata(url, { signal: controller.signal })).resolves.toMatchObject({
      ok: false,
      error: 'the fetch was cancelled',
    });
  });

  it('reports a refused connection', async () => {
    const url = await serve(() => undefined);
    await loopback.closeLast();
    const result = await fetchSamlMetadata(url);
    expect(result).toMatchObject({ ok: false, finalUrl: `${url}/` });
    expect(!result.ok && result.error).toContain('ECONNREFUSED');
  });

  it.each([
    ['ftp://ftp.example.org/metadata.xml', 'only http and https URLs are fetched, not ftp:'],
    ['file:///etc/passwd', 'only http and https URLs are fetched, not file:'],
    ['not a url', 'not a valid URL: not a url'],
  ])('refuses to start from %s', async (url, error) => {
    await expect(fetchSamlMetadata(url)).resolves.toEqual({ ok: false, error, finalUrl: null });
  });
});

describe('fetchSamlMetadata with OUTBOUND_DENY', () => {
  function guardDenying(raw: string): OutboundGuard {
    const parsed = parseOutboundDeny(raw);
    if (!parsed.ok) throw new Error(parsed.problem);
    return new OutboundGuard(parsed.value);
  }
  /** Serves the document and counts the requests it saw. */
  const metadataServer = async (host = '127.0.0.1') => {
    const seen = { requests: 0 };
    const url = await listen(
      createServer((_req, res) => {
        seen.requests += 1;
        sendMetadata(res);
      }),
      'http',
      host,
    );
    return { url, seen };
  };
  const redirectingTo = (location: string) => serve((_req, res) => res.writeHead(302, { location }).end());

  it('refuses a denied address without connecting, and says why', async () => {
    const { url, seen } = await metadataServer();
    await expect(fetchSamlMetadata(`${url}/metadata.xml`, { guard: guardDenying('127.0.0.0/8') })).resolves.toEqual({
      ok: false,
      error: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8',
      finalUrl: `${url}/metadata.xml`,
    });
    expect(seen.requests).toBe(0);
  });

  it('refuses a redirect from an allowed host to a denied one at that hop', async () => {
    const denied = await metadataServer('127.0.0.2');
    const start = await redirectingTo(`${denied.url}/metadata.xml`);
    await expect(fetchSamlMetadata(start, { guard: guardDenying('127.0.0.2/32') })).resolves.toEqual({
      ok: false,
      error: 'refused by OUTBOUND_DENY: 127.0.0.2 is in 127.0.0.2/32',
      finalUrl: `${denied.url}/metadata.xml`,
    });
    expect(denied.seen.requests).toBe(0);
    // The same chain without that entry: the hop itself works, and the document's address is the last hop's.
    await expect(fetchSamlMetadata(start, { guard: OutboundGuard.DEFAULT })).resolves.toMatchObject({
      ok: true,
      remoteAddress: '127.0.0.2',
    });
  });

  it('lets loopback through with the default list', async () => {
    const { url, seen } = await metadataServer();
    await expect(fetchSamlMetadata(url, { guard: OutboundGuard.DEFAULT })).resolves.toMatchObject({ ok: true, remoteAddress: '127.0.0.1' });
    expect(seen.requests).toBe(1);
  });
});

describe('fetchSamlMetadata over https', () => {
  let httpsUrl: string;

  beforeEach(async () => {
    const minted = await mintCertificate({ subject: 'CN=127.0.0.1', sans: ['127.0.0.1'] });
    const key = KeyObject.from(minted.keys.privateKey).export({ format: 'pem', type: 'pkcs8' });
    httpsUrl = await listen(
      createHttpsServer({ key, cert: minted.pem }, (req, res) => {
        if (req.url === '/down') return void res.writeHead(302, { location: 'http://127.0.0.1:9/metadata.xml' }).end();
        sendMetadata(res);
      }),
      'https',
    );
  });

  it('fetches from a self-signed server when told to skip verification', async () => {
    await expect(fetchSamlMetadata(`${httpsUrl}/metadata.xml`, { insecureTls: true })).resolves.toMatchObject({
      ok: true,
      document: METADATA,
    });
  });

  it('verifies the certificate by default', async () => {
    const result = await fetchSamlMetadata(`${httpsUrl}/metadata.xml`);
    expect(result).toMatchObject({ ok: false, finalUrl: `${httpsUrl}/metadata.xml` });
    expect(!result.ok && result.error).toMatch(/self[- ]signed/);
  });

  it('refuses a redirect from https down to http', async () => {
    await expect(fetchSamlMetadata(`${httpsUrl}/down`, { insecureTls: true })).resolves.toEqual({
      ok: false,
      error: 'a redirect from https down to http (http://127.0.0.1:9/metadata.xml) is not followed',
      finalUrl: `${httpsUrl}/down`,
    });
  });
});
