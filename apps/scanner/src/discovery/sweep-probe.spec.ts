import { createHash } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import { mintCertificate, mintChain, type MintedCertificate, type MintedChain, privateKeyPem } from '@certkeeper/domain/testing';
import { OutboundGuard, parseOutboundDeny } from '@certkeeper/net';
import { type LocalServer, startNodeTlsServer, startTarpit, testOutboundGuard, unusedPort } from '@certkeeper/net/testing';
import { probeSweepTarget, type SweepProbeOptions, usableHostname } from './sweep-probe';

const fingerprintOfPem = (pem: string) =>
  createHash('sha256')
    .update(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))
    .digest('hex');
const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

function guardDenying(raw: string): OutboundGuard {
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new OutboundGuard(parsed.value);
}

// Short deadlines keep the tarpit cases fast; no real DNS (CONVENTIONS 18): reverse names are given.
const fast: SweepProbeOptions = { guard: testOutboundGuard(), connectTimeoutMs: 400, handshakeTimeoutMs: 400, reverseLookup: null };

const openSockets = new Set<Socket>();
function listen(server: Server): Promise<number> {
  server.on('connection', (socket: Socket) => {
    // The probe may leave mid-handshake; the reset that causes is expected.
    socket.on('error', () => undefined);
    openSockets.add(socket);
    socket.once('close', () => openSockets.delete(socket));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    for (const socket of openSockets) socket.destroy();
    server.close(() => resolve());
  });

describe('probeSweepTarget', () => {
  let plain: MintedCertificate;
  let named: MintedCertificate;
  let chain: MintedChain;
  let servers: LocalServer[];
  let sniPort: number;
  let chainPort: number;
  let tarpitPort: number;

  beforeAll(async () => {
    [plain, named, chain] = await Promise.all([
      mintCertificate({
        subject: 'CN=default.example.test',
        sans: ['default.example.test', 'ALT.example.test', '127.0.0.1', 'ops@example.test'],
      }),
      mintCertificate({ subject: 'CN=named.example.test', sans: ['named.example.test', '*.named.example.test'] }),
      mintChain(),
    ]);
    const namedContext = createSecureContext({ cert: named.pem, key: await privateKeyPem(named.keys.privateKey) });
    servers = await Promise.all([
      // Without SNI the default certificate; with "named.example.test" the named one.
      startNodeTlsServer({
        cert: plain.pem,
        key: await privateKeyPem(plain.keys.privateKey),
        SNICallback: (name, done) => done(null, name === 'named.example.test' ? namedContext : undefined),
      }),
      startNodeTlsServer({ cert: chain.leaf.pem + chain.intermediate.pem, key: await privateKeyPem(chain.leaf.keys.privateKey) }),
      startTarpit(),
    ]);
    [sniPort, chainPort, tarpitPort] = servers.map((server) => server.port);
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('finds a TLS service without SNI when the address has no reverse name', async () => {
    const result = await probeSweepTarget({ address: '127.0.0.1', port: sniPort }, fast);
    expect(result).toMatchObject({ outcome: 'service', address: '127.0.0.1', port: sniPort });
    if (result.outcome !== 'service') return;
    expect(result.service).toMatchObject({
      reverseName: null,
      serverName: null,
      hostnames: ['default.example.test', 'alt.example.test'],
      tlsVersion: 'TLSv1.3',
    });
    expect(fingerprintOfPem(result.service.chain[0])).toBe(fingerprintOf(plain));
  });

  it('sends the reverse-DNS name as SNI and lists it first among the hostnames', async () => {
    const lookups: string[] = [];
    const reverseLookup = (address: string) => {
      lookups.push(address);
      return Promise.resolve('named.example.test');
    };
    const result = await probeSweepTarget({ address: '127.0.0.1', port: sniPort }, { ...fast, reverseLookup });
    expect(lookups).toEqual(['127.0.0.1']);
    expect(result).toMatchObject({
      outcome: 'service',
      service: {
        reverseName: 'named.example.test',
        serverName: 'named.example.test',
        hostnames: ['named.example.test', '*.named.example.test'],
      },
    });
    if (result.outcome === 'service') expect(fingerprintOfPem(result.service.chain[0])).toBe(fingerprintOf(named));
  });

  it('tries again without SNI when the server refuses the reverse name', async () => {
    const strict = await startNodeTlsServer({
      cert: plain.pem,
      key: await privateKeyPem(plain.keys.privateKey),
      SNICallback: (_name, done) => done(new Error('unrecognized name')),
    });
    try {
      const reverseLookup = () => Promise.resolve('ptr.isp.example.test');
      const result = await probeSweepTarget({ address: '127.0.0.1', port: strict.port }, { ...fast, reverseLookup });
      expect(result).toMatchObject({
        outcome: 'service',
        service: {
          reverseName: 'ptr.isp.example.test',
          serverName: null,
          hostnames: ['ptr.isp.example.test', 'default.example.test', 'alt.example.test'],
        },
      });
    } finally {
      await strict.close();
    }
  });

  it('captures the presented chain, leaf first', async () => {
    const result = await probeSweepTarget({ address: '127.0.0.1', port: chainPort }, fast);
    expect(result.outcome).toBe('service');
    if (result.outcome !== 'service') return;
    expect(result.service.chain.map(fingerprintOfPem)).toEqual([fingerprintOf(chain.leaf), fingerprintOf(chain.intermediate)]);
    expect(result.service.hostnames).toEqual(['leaf.example.com']);
  });

  it('finds a TLS service with exactly one TCP connection to it', async () => {
    let connections = 0;
    const server = createTlsServer({ cert: plain.pem, key: await privateKeyPem(plain.keys.privateKey) }, (socket) => socket.destroy());
    server.on('tlsClientError', () => undefined);
    server.on('connection', () => (connections += 1));
    const port = await listen(server);
    try {
      const reverseLookup = () => Promise.resolve('named.example.test');
      const result = await probeSweepTarget({ address: '127.0.0.1', port }, { ...fast, reverseLookup });
      expect(result).toMatchObject({ outcome: 'service', service: { serverName: 'named.example.test' } });
      if (result.outcome === 'service') expect(fingerprintOfPem(result.service.chain[0])).toBe(fingerprintOf(plain));
      // The port is classified, named and upgraded on the same connection.
      expect(connections).toBe(1);
    } finally {
      await close(server);
    }
  });

  it('counts a closed port as closed, without a reverse lookup', async () => {
    const reverseLookup = jest.fn(() => Promise.resolve('never.example.test'));
    const result = await probeSweepTarget({ address: '127.0.0.1', port: await unusedPort() }, { ...fast, reverseLookup });
    expect(result.outcome).toBe('closed');
    expect(reverseLookup).not.toHaveBeenCalled();
  });

  it('ends a tarpit by the handshake deadline as silent', async () => {
    const result = await probeSweepTarget({ address: '127.0.0.1', port: tarpitPort }, fast);
    expect(result).toMatchObject({ outcome: 'silent', stage: 'handshake' });
    expect(result.durationMs).toBeGreaterThanOrEqual(380);
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('reports a port that answers with something other than TLS as not-tls', async () => {
    const server = createTcpServer((socket) => socket.end('HTTP/1.0 400 Bad Request\r\n\r\n'));
    const port = await listen(server);
    try {
      const result = await probeSweepTarget({ address: '127.0.0.1', port }, fast);
      expect(result).toMatchObject({ outcome: 'not-tls', error: expect.any(String) as string });
    } finally {
      await close(server);
    }
  });

  it('reports a peer that hangs up during the reverse lookup as not-tls, not as silence', async () => {
    const server = createTcpServer((socket) => socket.destroy());
    const port = await listen(server);
    try {
      const reverseLookup = () => new Promise<string | null>((resolve) => setTimeout(() => resolve(null), 100));
      const result = await probeSweepTarget({ address: '127.0.0.1', port }, { ...fast, reverseLookup });
      expect(result).toMatchObject({ outcome: 'not-tls', error: expect.any(String) as string });
      expect(result.durationMs).toBeLessThan(380);
    } finally {
      await close(server);
    }
  });

  it('never connects to an address the guard refuses', async () => {
    let connections = 0;
    const server = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    const port = await listen(server);
    try {
      const reverseLookup = jest.fn(() => Promise.resolve(null));
      const result = await probeSweepTarget({ address: '127.0.0.1', port }, { ...fast, guard: guardDenying('127.0.0.0/8'), reverseLookup });
      expect(result).toMatchObject({ outcome: 'refused-by-guard', error: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8' });
      expect(connections).toBe(0);
      expect(reverseLookup).not.toHaveBeenCalled();
    } finally {
      await close(server);
    }
  });

  it('treats a failing reverse lookup as no name', async () => {
    const result = await probeSweepTarget(
      { address: '127.0.0.1', port: sniPort },
      { ...fast, reverseLookup: () => Promise.reject(new Error('SERVFAIL')) },
    );
    expect(result).toMatchObject({ outcome: 'service', service: { reverseName: null, serverName: null } });
  });
});

describe('usableHostname', () => {
  it.each([
    ['Host.Example.COM.', 'host.example.com'],
    ['localhost', 'localhost'],
    ['_dmarc.example.com', '_dmarc.example.com'],
    ['', null],
    ['10.0.0.1', null],
    ['bad name.example.com', null],
    ['-lead.example.com', null],
    [`${'a'.repeat(64)}.example.com`, null],
  ])('%j → %j', (input, expected) => {
    expect(usableHostname(input)).toBe(expected);
  });
});
