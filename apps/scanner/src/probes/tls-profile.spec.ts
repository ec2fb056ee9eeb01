import { randomBytes } from 'node:crypto';
import type { TlsProfile } from '@certkeeper/domain/protocol';
import { cipherSuiteName, cipherSuitesToOffer, HELLO_RETRY_REQUEST_RANDOM, requiresTls12 } from '@certkeeper/domain/tls';
import { generateKeyPair, mintCertificate, type ParsedClientHello } from '@certkeeper/domain/testing';
import {
  type Credentials,
  type LocalServer,
  privateKeyPem,
  type ScriptedAnswer,
  startNodeTlsServer,
  startScriptedServer,
  startTarpit,
  testOutboundGuard,
  unusedPort,
} from '@certkeeper/net/testing';
import { OutboundGuard, parseOutboundDeny } from '@certkeeper/net';
import { profileTls as profileUnguarded, type TlsProfileOptions, type TlsProfileTarget } from './tls-profile';

// Through OUTBOUND_DENY as the test run sets it, like the agent (testOutboundGuard, @certkeeper/net/testing).
const profileTls = (target: TlsProfileTarget, options: TlsProfileOptions = {}) =>
  profileUnguarded(target, { guard: testOutboundGuard(), ...options });

const target = (port: number, serverName = 'leaf.example.com') => ({ host: '127.0.0.1', port, serverName });

/** Version -> suites, for the versions the profile found supported. */
const supported = (profile: TlsProfile | null) =>
  Object.fromEntries((profile?.versions ?? []).filter((entry) => entry.supported).map((entry) => [entry.version, entry.cipherSuites]));

const NODE_TLS13_DEFAULTS = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

describe('profileTls against Node TLS servers', () => {
  let rsa: Credentials;
  let ecdsa: Credentials;
  const servers: LocalServer[] = [];
  const start = async (options: Parameters<typeof startNodeTlsServer>[0]) => {
    const server = await startNodeTlsServer(options);
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    const [rsaCertificate, ecdsaCertificate] = await Promise.all([
      generateKeyPair('rsa-2048').then((keys) => mintCertificate({ keys, sans: ['leaf.example.com'] })),
      mintCertificate({ sans: ['leaf.example.com'] }),
    ]);
    rsa = { certPem: rsaCertificate.pem, keyPem: await privateKeyPem(rsaCertificate.keys.privateKey) };
    ecdsa = { certPem: ecdsaCertificate.pem, keyPem: await privateKeyPem(ecdsaCertificate.keys.privateKey) };
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('finds TLS 1.3 alone, with SNI on every hello, in 8 connections', async () => {
    const names: string[] = [];
    const server = await start({
      cert: ecdsa.certPem,
      key: ecdsa.keyPem,
      minVersion: 'TLSv1.3',
      SNICallback: (name, done) => {
        names.push(name);
        done(null, undefined);
      },
    });
    const result = await profileTls(target(server.port));

    expect(result.error).toBeNull();
    expect(Object.keys(supported(result.profile))).toEqual(['TLSv1.3']);
    expect([...supported(result.profile)['TLSv1.3']].sort()).toEqual(NODE_TLS13_DEFAULTS);
    expect(result.profile?.negotiatedVersion).toBe('TLSv1.3');
    expect(NODE_TLS13_DEFAULTS).toContain(result.profile?.negotiatedCipherSuite);
    // TLS 1.2, 1.1, 1.0 and SSL 3.0 refused once each; TLS 1.3: three suites and the final refusal.
    expect(result.connections).toBe(8);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set(['leaf.example.com']));
  });

  it('lists exactly the configured TLS 1.2 suites, in the order the server prefers them', async () => {
    const server = await start({
      cert: rsa.certPem,
      key: rsa.keyPem,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305',
      honorCipherOrder: true,
    });
    const result = await profileTls(target(server.port));

    expect(result.error).toBeNull();
    expect(supported(result.profile)).toEqual({
      'TLSv1.2': [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
      ],
    });
    expect(result.profile?.versions.map((entry) => entry.version)).toEqual(['SSLv3', 'TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
    expect(result.profile?.negotiatedVersion).toBe('TLSv1.2');
    expect(result.profile?.negotiatedCipherSuite).toBe('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
    expect(result.connections).toBe(8);
  });

  it('profiles TLS 1.2 and 1.3 together; the negotiated pair is the best version and its first suite', async () => {
    const server = await start({
      cert: ecdsa.certPem,
      key: ecdsa.keyPem,
      ciphers: 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-SHA',
      honorCipherOrder: true,
    });
    const result = await profileTls(target(server.port, '127.0.0.1'));

    expect(supported(result.profile)).toEqual({
      'TLSv1.2': ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA'],
      'TLSv1.3': ['TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'],
    });
    expect(result.profile?.negotiatedVersion).toBe('TLSv1.3');
    expect(result.profile?.negotiatedCipherSuite).toBe('TLS_CHACHA20_POLY1305_SHA256');
    expect(result.connections).toBe(9);
  });

  it('answers a HelloRetryRequest for P-256 with a real P-256 share, once per profile', async () => {
    const server = await start({ cert: ecdsa.certPem, key: ecdsa.keyPem, minVersion: 'TLSv1.3', ecdhCurve: 'P-256' });
    const result = await profileTls(target(server.port));

    expect([...(supported(result.profile)['TLSv1.3'] ?? [])].sort()).toEqual(NODE_TLS13_DEFAULTS);
    // One more than without the retry: the later hellos carry the P-256 share from the start.
    expect(result.connections).toBe(9);
  });
});

describe('profileTls against scripted servers', () => {
  const servers: LocalServer[] = [];
  const script = async (answer: (hello: ParsedClientHello) => ScriptedAnswer) => {
    const server = await startScriptedServer(answer);
    servers.push(server);
    return server;
  };
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('retries once with a small bundle when a server hangs up on the big one', async () => {
    const preference = [0xc030, 0x009c];
    const server = await script((hello) => {
      if (!isTls12Hello(hello)) return alert(70);
      if (hello.cipherSuites.length > 100) return 'close';
      const suite = preference.find((candidate) => hello.cipherSuites.includes(candidate));
      return suite === undefined ? alert(40) : serverHello(0x0303, suite);
    });
    const result = await profileTls(target(server.port));

    expect(supported(result.profile)).toEqual({ 'TLSv1.2': ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_GCM_SHA256'] });
    expect(result.connections).toBe(8);
  });

  it('takes a HelloRetryRequest for a group it cannot make as the answer: it names the suite', async () => {
    const preference = [0x1302, 0x1301];
    const server = await script((hello) => {
      if (!hello.supportedVersions.includes(0x0304)) return alert(70);
      const suite = preference.find((candidate) => hello.cipherSuites.includes(candidate));
      return suite === undefined ? alert(40) : helloRetryRequest(suite, 0x0100); // ffdhe2048
    });
    const result = await profileTls(target(server.port));

    expect(supported(result.profile)).toEqual({ 'TLSv1.3': ['TLS_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256'] });
    expect(result.connections).toBe(7);
  });

  it('counts silence as a refusal once the host has shown it speaks TLS', async () => {
    const server = await script((hello) => {
      if (!isTls12Hello(hello)) return 'silent';
      return hello.cipherSuites.includes(0xc02f) ? serverHello(0x0303, 0xc02f) : alert(40);
    });
    const result = await profileTls(target(server.port), { readTimeoutMs: 100 });

    expect(result.error).toBeNull();
    expect(supported(result.profile)).toEqual({ 'TLSv1.2': ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] });
    // TLS 1.2: 2; TLS 1.3: 1; TLS 1.1, 1.0 and SSL 3.0: the whole bundle, then the compact one.
    expect(result.connections).toBe(9);
  });

  it('keeps every suite of a long configuration it prefers late in our offer, version by version', async () => {
    // Server preference is our offer reversed: the 60 suites we offer last, weakest first. TLS 1.1
    // keeps those older versions can carry, in another order; TLS 1.0 drops one of them and adds
    // one TLS 1.2 refuses. A profile that carried one version's findings over to another, or
    // stopped before the final refusal, loses a suite here.
    const tls12 = cipherSuitesToOffer('TLSv1.2').slice(-60).reverse();
    const tls11 = tls12.filter((suite) => !requiresTls12(suite)).sort((a, b) => a - b);
    const onlyAtTls10 = cipherSuitesToOffer('TLSv1.0').find((suite) => !tls12.includes(suite))!;
    const tls10 = [...tls11.slice(1), onlyAtTls10];
    const configured = new Map([
      [0x0301, tls10],
      [0x0302, tls11],
      [0x0303, tls12],
    ]);
    const server = await script((hello) => {
      const preference = configured.get(askedVersion(hello));
      if (preference === undefined) return alert(70);
      const suite = preference.find((candidate) => hello.cipherSuites.includes(candidate));
      return suite === undefined ? alert(40) : serverHello(hello.legacyVersion, suite);
    });
    const result = await profileTls(target(server.port));

    expect(tls11.length).toBeGreaterThan(10);
    expect(supported(result.profile)).toEqual({
      'TLSv1.0': tls10.map(cipherSuiteName),
      'TLSv1.1': tls11.map(cipherSuiteName),
      'TLSv1.2': tls12.map(cipherSuiteName),
    });
    // One connection per (version, suite) pair, one refusal per version.
    expect(result.connections).toBe(tls12.length + tls11.length + tls10.length + 5);
  });

  it('takes an answer at a lower version as the first suite of that version, and skips the versions between', async () => {
    const preference = [0x0033, 0x002f, 0xc014]; // DHE-RSA-AES128-SHA, AES128-SHA, ECDHE-RSA-AES256-SHA
    const server = await script((hello) => {
      if (hello.legacyVersion < 0x0301) return alert(70);
      const suite = preference.find((candidate) => hello.cipherSuites.includes(candidate));
      return suite === undefined ? alert(40) : serverHello(0x0301, suite);
    });
    const result = await profileTls(target(server.port));

    expect(result.error).toBeNull();
    expect(supported(result.profile)).toEqual({ 'TLSv1.0': preference.map(cipherSuiteName) });
    expect(result.profile).toMatchObject({ negotiatedVersion: 'TLSv1.0', negotiatedCipherSuite: 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA' });
    // TLS 1.2: answered at 1.0, the first suite; TLS 1.3: 1; TLS 1.1: none; TLS 1.0: two more
    // suites and the refusal; SSL 3.0: 1.
    expect(result.connections).toBe(6);
  });

  it('gives up on a host that answers in another protocol', async () => {
    const server = await script(() => Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    const result = await profileTls(target(server.port));

    expect(result.profile).toBeNull();
    expect(result.error).toMatch(/^not a TLS server/);
    expect(result.connections).toBe(1);
  });
});

describe('profileTls deadlines and failures', () => {
  let tarpit: LocalServer;
  beforeAll(async () => (tarpit = await startTarpit()));
  afterAll(() => tarpit.close());

  it('does not stall on a host that accepts TCP and says nothing', async () => {
    const started = Date.now();
    const result = await profileTls(target(tarpit.port), { readTimeoutMs: 300 });

    expect(result.profile).toBeNull();
    expect(result.error).toBe('no TLS answer within 300 ms');
    expect(result.connections).toBe(1);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('stops at the overall deadline even when each read may take longer', async () => {
    const started = Date.now();
    const result = await profileTls(target(tarpit.port), { readTimeoutMs: 10_000, deadlineMs: 400 });

    expect(result.profile).toBeNull();
    expect(result.error).toMatch(/400 ms deadline passed/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('stops when the caller aborts', async () => {
    const started = Date.now();
    const result = await profileTls(target(tarpit.port), { readTimeoutMs: 10_000, signal: AbortSignal.timeout(200) });

    expect(result).toMatchObject({ profile: null, error: 'the profile was aborted' });
    expect(Date.now() - started).toBeLessThan(1500);
    const already = await profileTls(target(tarpit.port), { signal: AbortSignal.abort() });
    expect(already).toMatchObject({ profile: null, error: 'the profile was aborted', connections: 0 });
  });

  it('reports a refused port instead of throwing', async () => {
    const result = await profileTls(target(await unusedPort()), { connectTimeoutMs: 1000 });

    expect(result.profile).toBeNull();
    expect(result.error).toMatch(/refused/);
    expect(result.connections).toBe(1);
  });

  it('stops at the first connection OUTBOUND_DENY refuses, saying why', async () => {
    const parsed = parseOutboundDeny('127.0.0.0/8');
    if (!parsed.ok) throw new Error(parsed.problem);
    const result = await profileTls(target(tarpit.port), { guard: new OutboundGuard(parsed.value), readTimeoutMs: 10_000 });

    expect(result).toMatchObject({ profile: null, error: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8', connections: 1 });
  });
});

/** The highest version a hello asks for: from supported_versions when present (TLS 1.3), else its legacy version. */
function askedVersion(hello: ParsedClientHello): number {
  return hello.supportedVersions.length > 0 ? Math.max(...hello.supportedVersions) : hello.legacyVersion;
}

function isTls12Hello(hello: ParsedClientHello): boolean {
  return hello.legacyVersion === 0x0303 && !hello.supportedVersions.includes(0x0304);
}

const uint16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);

function record(type: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type, 3, 3]), uint16(body.length), body]);
}

function alert(description: number): Buffer {
  return record(21, Buffer.from([2, description]));
}

function serverHello(version: number, suite: number, extensions = Buffer.alloc(0), random: Uint8Array = randomBytes(32)): Buffer {
  const body = Buffer.concat([
    uint16(version),
    random,
    Buffer.from([0]),
    uint16(suite),
    Buffer.from([0]),
    uint16(extensions.length),
    extensions,
  ]);
  return record(22, Buffer.concat([Buffer.from([2, 0, body.length >> 8, body.length & 0xff]), body]));
}

function helloRetryRequest(suite: number, group: number): Buffer {
  const extensions = Buffer.concat([uint16(0x002b), uint16(2), uint16(0x0304), uint16(0x0033), uint16(2), uint16(group)]);
  return serverHello(0x0303, suite, extensions, HELLO_RETRY_REQUEST_RANDOM);
}
