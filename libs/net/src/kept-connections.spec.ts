import { createServer, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import { LoopbackServers } from '../testing/loopback-servers';
import { boundedFetch, type BoundedFetchOptions } from './bounded-fetch';
import { KeptConnections } from './kept-connections';
import { parseOutboundDeny } from './outbound-deny';
import { OutboundGuard } from './outbound-guard';

const LIMITS: BoundedFetchOptions = { maxBytes: 1024, timeoutMs: 5000, maxRedirects: 0, method: 'POST', body: 'event' };

const loopback = new LoopbackServers();
let connections: KeptConnections;

beforeEach(() => {
  connections = new KeptConnections();
});

afterEach(async () => {
  connections.close();
  await loopback.closeAll();
});

/** A server on `host` that notes each connection it accepted and the connection each request came on. */
async function countingServer(handler: RequestListener, host = '127.0.0.1') {
  const sockets: Socket[] = [];
  const requests: { path: string; connection: number }[] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', connection: sockets.indexOf(req.socket) });
    // The body is read before answering, as a receiver does.
    req.resume().on('end', () => handler(req, res));
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  const url = await loopback.listen(server, 'http', host);
  return { url, sockets, requests };
}

function guardDenying(raw: string): OutboundGuard {
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new OutboundGuard(parsed.value);
}

describe('boundedFetch with kept connections', () => {
  it('sends one request after another on one connection, and a connection of its own each without them', async () => {
    const receiver = await countingServer((_req, res) => res.writeHead(202).end());
    for (const path of ['/1', '/2', '/3']) {
      await expect(boundedFetch(`${receiver.url}${path}`, { ...LIMITS, connections })).resolves.toMatchObject({ ok: true, status: 202 });
    }
    expect(receiver.requests).toEqual([
      { path: '/1', connection: 0 },
      { path: '/2', connection: 0 },
      { path: '/3', connection: 0 },
    ]);

    await boundedFetch(`${receiver.url}/4`, LIMITS);
    await boundedFetch(`${receiver.url}/5`, LIMITS);
    expect(receiver.requests.slice(3).map((request) => request.connection)).toEqual([1, 2]);
  });

  it('never sends a request on a connection to another origin', async () => {
    const first = await countingServer((_req, res) => res.end());
    const second = await countingServer((_req, res) => res.end(), '127.0.0.2');
    await boundedFetch(`${first.url}/a`, { ...LIMITS, connections });
    await boundedFetch(`${second.url}/b`, { ...LIMITS, connections });
    await boundedFetch(`${first.url}/c`, { ...LIMITS, connections });
    expect(first.requests).toEqual([
      { path: '/a', connection: 0 },
      { path: '/c', connection: 0 },
    ]);
    expect(second.requests).toEqual([{ path: '/b', connection: 0 }]);
  });

  it('checks OUTBOUND_DENY on every request while a connection is kept open', async () => {
    const receiver = await countingServer((_req, res) => res.end());
    await boundedFetch(`${receiver.url}/allowed`, { ...LIMITS, connections, guard: guardDenying('10.0.0.0/8') });
    await expect(boundedFetch(`${receiver.url}/denied`, { ...LIMITS, connections, guard: guardDenying('127.0.0.0/8') })).resolves.toEqual({
      ok: false,
      failure: { kind: 'refused', message: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8' },
      finalUrl: `${receiver.url}/denied`,
    });
    expect(receiver.requests.map((request) => request.path)).toEqual(['/allowed']);
  });

  it('keeps the deadline on a kept connection, and never uses a connection again after its request timed out', async () => {
    const receiver = await countingServer((req, res) => {
      if (req.url !== '/stall') res.end();
    });
    await boundedFetch(`${receiver.url}/first`, { ...LIMITS, connections });
    await expect(boundedFetch(`${receiver.url}/stall`, { ...LIMITS, connections, timeoutMs: 200 })).resolves.toEqual({
      ok: false,
      failure: { kind: 'timeout' },
      finalUrl: `${receiver.url}/stall`,
    });
    await boundedFetch(`${receiver.url}/after`, { ...LIMITS, connections });
    expect(receiver.requests).toEqual([
      { path: '/first', connection: 0 },
      { path: '/stall', connection: 0 },
      // A late answer to the stalled request must not be read as this one's.
      { path: '/after', connection: 1 },
    ]);
  });

  it('keeps the size cap on a kept connection, and closes the connection an answer overran', async () => {
    const receiver = await countingServer((req, res) => res.end(req.url === '/large' ? 'x'.repeat(2048) : 'ok'));
    await boundedFetch(`${receiver.url}/first`, { ...LIMITS, connections });
    await expect(boundedFetch(`${receiver.url}/large`, { ...LIMITS, connections })).resolves.toMatchObject({
      ok: false,
      failure: { kind: 'too-large' },
    });
    await expect(boundedFetch(`${receiver.url}/after`, { ...LIMITS, connections })).resolves.toMatchObject({
      ok: true,
      body: Buffer.from('ok'),
    });
    expect(receiver.requests.map((request) => request.connection)).toEqual([0, 0, 1]);
  });

  it('closes its idle connections when closed', async () => {
    const receiver = await countingServer((_req, res) => res.end());
    await boundedFetch(`${receiver.url}/`, { ...LIMITS, connections });
    const closed = new Promise((resolve) => receiver.sockets[0].once('close', resolve));
    connections.close();
    await closed;
  });
});
