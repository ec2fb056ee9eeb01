import { createHash, X509Certificate } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSecureContext, createServer } from 'node:tls';
import { mintCertificate, mintChain, pemBundle, privateKeyPem, type MintedCertificate } from '@certkeeper/domain/testing';
import { type HostWorkItem, MAX_PRESENTED_CHAIN } from '@certkeeper/domain/protocol';
import { OutboundGuard, parseOutboundDeny } from '@certkeeper/net';
import { type HostProbeOptions, identityError, probeHost as probeUnguarded } from './host-probe';
import { testOutboundGuard } from '@certkeeper/net/testing';

// Through OUTBOUND_DENY as the test run sets it, like the agent (testOutboundGuard, @certkeeper/net/testing).
const probeHost = (target: HostWorkItem, options: HostProbeOptions = {}) =>
  probeUnguarded(target, { guard: testOutboundGuard(), ...options });

function guardDenying(raw: string): OutboundGuard {
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new OutboundGuard(parsed.value);
}

const fingerprintOfPem = (pem: string) =>
  createHash('sha256')
    .update(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))
    .digest('hex');
const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

const item = (port: number, dnsName: string, ipAddress: string | null = '127.0.0.1', tlsProfileDue = false): HostWorkItem => ({
  endpointId: '00000000-0000-4000-8000-000000000001',
  type: 'host',
  dnsName,
  port,
  ipAddress,
  tlsProfileDue,
});

describe('probeHost', () => {
  let server: Server;
  let port: number;
  let a: MintedCertificate;
  let b: MintedCertificate;
  let chain: Awaited<ReturnType<typeof mintChain>>;
  let strangers: MintedCertificate[];

  beforeAll(async () => {
    [a, b, chain, ...strangers] = await Promise.all([
      mintCertificate({ subject: 'CN=a.example.test', sans: ['a.example.test'] }),
      mintCertificate({ subject: 'CN=b.example.test', sans: ['b.example.test'] }),
      mintChain(),
      ...Array.from({ length: MAX_PRESENTED_CHAIN + 5 }, (_, i) => mintCertificate({ subject: `CN=Stranger ${i}` })),
    ]);
    const leafKey = await privateKeyPem(chain.leaf.keys.privateKey);
    // The leaf with other certificates after it, in the order given: what misconfigured servers send.
    const sending = (...rest: MintedCertificate[]) => createSecureContext({ cert: pemBundle(chain.leaf, ...rest), key: leafKey });
    const contexts = new Map([
      ['disordered.example.com', sending(chain.root, chain.intermediate)],
      ['padded.example.com', sending(strangers[0], chain.intermediate, chain.intermediate, chain.leaf)],
      ['crowded.example.com', sending(...strangers)],
      ['a.example.test', createSecureContext({ cert: a.pem, key: await privateKeyPem(a.keys.privateKey) })],
      ['b.example.test', createSecureContext({ cert: b.pem, key: await privateKeyPem(b.keys.privateKey) })],
      ['leaf.example.com', sending(chain.intermediate)],
    ]);
    // One listener, several certificates: the SNI name chooses.
    server = createServer({
      cert: a.pem,
      key: await privateKeyPem(a.keys.privateKey),
      SNICallback: (name, done) => done(null, contexts.get(name) ?? contexts.get('a.example.test')),
    });
    port = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('connects to the pinned IP and sends the DNS name as SNI, so the name chooses the certificate', async () => {
    const first = await probeHost(item(port, 'a.example.test'));
    const second = await probeHost(item(port, 'b.example.test'));
    expect(first).toMatchObject({ success: true, error: null, resolvedIp: '127.0.0.1', tlsVersion: 'TLSv1.3', authorized: false });
    expect(first.cipherSuite).toMatch(/^TLS_/);
    expect(fingerprintOfPem(first.chain[0])).toBe(fingerprintOf(a));
    expect(fingerprintOfPem(second.chain[0])).toBe(fingerprintOf(b));
    expect(first.resultId).not.toBe(second.resultId);
  });

  it('captures the presented chain, leaf first, and records the verification verdict', async () => {
    const result = await probeHost(item(port, 'leaf.example.com'));
    expect(result.chain.map(fingerprintOfPem)).toEqual([fingerprintOf(chain.leaf), fingerprintOf(chain.intermediate)]);
    expect(result.authorized).toBe(false);
    expect(result.authorizationError).toBeTruthy();
  });

  it('records the chain as the server sent it: out of order, with certificates of no path, each once', async () => {
    const disordered = await probeHost(item(port, 'disordered.example.com'));
    expect(disordered.chain.map(fingerprintOfPem)).toEqual([chain.leaf, chain.root, chain.intermediate].map(fingerprintOf));
    const padded = await probeHost(item(port, 'padded.example.com'));
    expect(padded.chain.map(fingerprintOfPem)).toEqual([chain.leaf, strangers[0], chain.intermediate].map(fingerprintOf));
  });

  it('reports the first MAX_PRESENTED_CHAIN certificates of a server that sends more', async () => {
    const result = await probeHost(item(port, 'crowded.example.com'));
    expect(result.success).toBe(true);
    expect(result.chain.map(fingerprintOfPem)).toEqual([chain.leaf, ...strangers].slice(0, MAX_PRESENTED_CHAIN).map(fingerprintOf));
  });

  it('checks the name of a verified leaf by tls.checkServerIdentity', () => {
    const leaf = new X509Certificate(chain.leaf.der);
    expect(identityError('leaf.example.com', leaf)).toBeNull();
    expect(identityError('LEAF.example.com', leaf)).toBeNull();
    expect(identityError('other.example.com', leaf)).toMatch(/other\.example\.com\. is not in the cert's altnames: DNS:leaf\.example\.com/);
    expect(identityError(null, leaf)).toBeNull();
  });

  it('resolves the DNS name when no IP is pinned', async () => {
    const result = await probeHost(item(port, 'localhost', null));
    expect(result.success).toBe(true);
    expect(['127.0.0.1', '::1']).toContain(result.resolvedIp);
  });

  it('reports a refused port', async () => {
    const closed = createTcpServer();
    const closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const result = await probeHost(item(closedPort, 'a.example.test'));
    expect(result).toMatchObject({ success: false, chain: [], tlsProfile: null });
    expect(result.error).toContain('refused');
  });

  it('gives up on a host that accepts TCP and then says nothing', async () => {
    const sockets: Socket[] = [];
    const tarpit = createTcpServer((socket) => void sockets.push(socket));
    const tarpitPort = await listen(tarpit);
    try {
      const started = Date.now();
      const result = await probeHost(item(tarpitPort, 'a.example.test'), { handshakeTimeoutMs: 300 });
      expect(result.success).toBe(false);
      expect(result.error).toContain('TLS handshake');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      tarpit.close();
    }
  });

  it('runs the TLS profile only when the work item asks for one', async () => {
    const profiled: string[] = [];
    const profile = (target: { serverName: string }) => {
      profiled.push(target.serverName);
      return Promise.resolve({ versions: [], negotiatedVersion: 'TLSv1.3' as const, negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256' });
    };
    const skipped = await probeHost(item(port, 'a.example.test', '127.0.0.1', false), { profile });
    const due = await probeHost(item(port, 'a.example.test', '127.0.0.1', true), { profile });
    expect(skipped.tlsProfile).toBeNull();
    expect(due.tlsProfile).toMatchObject({ negotiatedVersion: 'TLSv1.3' });
    expect(profiled).toEqual(['a.example.test']);
  });

  describe('with OUTBOUND_DENY', () => {
    let connections = 0;
    const count = () => (connections += 1);
    beforeEach(() => {
      connections = 0;
      server.on('connection', count);
    });
    afterEach(() => server.off('connection', count));

    it('refuses a pinned address the list covers without connecting, and says why', async () => {
      const result = await probeHost(item(port, 'a.example.test', '127.0.0.1'), { guard: guardDenying('127.0.0.0/8') });
      expect(result).toMatchObject({ success: false, error: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8', chain: [] });
      expect(connections).toBe(0);
    });

    it('refuses a DNS name that resolves to a denied address', async () => {
      const result = await probeHost(item(port, 'localhost', null), { guard: guardDenying('127.0.0.0/8,::1/128') });
      expect(result.success).toBe(false);
      expect(result.error).toMatch(/^refused by OUTBOUND_DENY: localhost resolves to (127\.0\.0\.1|::1), which is in /);
      expect(connections).toBe(0);
    });

    it('lets loopback through with the default list', async () => {
      const result = await probeHost(item(port, 'a.example.test', '127.0.0.1'), { guard: OutboundGuard.DEFAULT });
      expect(result).toMatchObject({ success: true, resolvedIp: '127.0.0.1' });
      expect(connections).toBe(1);
    });

    it('profiles the address the handshake reached, not the name again', async () => {
      const targets: string[] = [];
      const profile = (target: { host: string }) => {
        targets.push(target.host);
        return Promise.resolve(null);
      };
      const result = await probeHost(item(port, 'localhost', null, true), { guard: OutboundGuard.DEFAULT, profile });
      expect(result.success).toBe(true);
      expect(targets).toEqual([result.resolvedIp]);
    });
  });
});
