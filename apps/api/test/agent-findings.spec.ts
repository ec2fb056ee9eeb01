import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, mintCertificate, type MintedCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { type LocalServer, startJsseServer, startOpensslServer } from '@certkeeper/net/testing';
import { type AgentRun, runAgentCycle, RUN_OUTBOUND_DENY } from './support/agent-process';
import { DAY } from './support/fake-clock';
import { importTrustedRoots } from './support/root-stores';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { SwappableTlsServer } from './support/tls-servers';

const runAgentOnce = (apiUrl: string, token: string): Promise<AgentRun> =>
  runAgentCycle(apiUrl, token, { SCANNER_CONNECT_TIMEOUT_MS: '2000', SCANNER_HANDSHAKE_TIMEOUT_MS: '2000', ...RUN_OUTBOUND_DENY });

/** RSA keys the minting helpers do not offer: 1024 bits, or signing with SHA-1. */
const rsaKeys = (modulusLength: number, hash = 'SHA-256') =>
  webcrypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength, publicExponent: new Uint8Array([1, 0, 1]), hash }, true, [
    'sign',
    'verify',
  ]);

// Each finding of docs/api-contract.md section 18 on a local server modelled on the badssl.com set,
// scanned by the real agent, and a modern server with none. Node serves the certificate cases;
// openssl s_server the legacy protocol; Java's TLS stack the 3DES suite, which Debian's OpenSSL 3.0
// is built without (so neither Node nor s_server can offer it). Java is installed by .ci/run.
describe('findings of servers scanned by the real agent', () => {
  let t: TestApp;
  let admin: string;
  let token: string;
  const tls = new SwappableTlsServer();
  const legacyServers: LocalServer[] = [];
  const chainFiles = mkdtempSync(join(tmpdir(), 'certkeeper-agent-findings-'));
  const endpoints = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    token = (await defaultScannerCredentials(t, admin)).token;

    const root = await mintCertificate({ subject: 'CN=Findings Trusted Root, O=Certkeeper', ca: true });
    const intermediate = await mintCertificate({
      subject: 'CN=Findings Intermediate, O=Certkeeper',
      issuer: root,
      ca: true,
      pathLength: 0,
    });
    const sha1Root = await mintCertificate({
      subject: 'CN=Findings SHA-1 Root, O=Certkeeper',
      ca: true,
      keys: await rsaKeys(2048, 'SHA-1'),
    });
    const sha1Intermediate = await mintCertificate({ subject: 'CN=Findings SHA-1 Intermediate, O=Certkeeper', issuer: sha1Root, ca: true });
    const privateRoot = await mintCertificate({ subject: 'CN=Private Root, O=Elsewhere', ca: true });
    await importTrustedRoots(t, admin, [root, sha1Root]);

    const leaf = (name: string, options: Parameters<typeof mintCertificate>[0] = {}) =>
      mintCertificate({ issuer: intermediate, subject: `CN=${name}`, sans: [name], ...options });
    const now = Date.now();
    const cases: [string, MintedCertificate, MintedCertificate[]][] = [
      ['modern.example.test', await leaf('modern.example.test'), [intermediate]],
      [
        'expired.example.test',
        await leaf('expired.example.test', { notBefore: new Date(now - 100 * DAY), notAfter: new Date(now - 10 * DAY) }),
        [intermediate],
      ],
      ['wrong.host.example.test', await leaf('other.example.test'), [intermediate]],
      [
        'self-signed.example.test',
        await mintCertificate({ subject: 'CN=self-signed.example.test', sans: ['self-signed.example.test'] }),
        [],
      ],
      [
        'untrusted-root.example.test',
        await mintCertificate({ issuer: privateRoot, subject: 'CN=untrusted-root.example.test', sans: ['untrusted-root.example.test'] }),
        [privateRoot],
      ],
      ['incomplete-chain.example.test', await leaf('incomplete-chain.example.test'), []],
      ['rsa1024.example.test', await leaf('rsa1024.example.test', { keys: await rsaKeys(1024) }), [intermediate]],
    ];
    // The incomplete chain's intermediate is known (a client that caches it trusts the leaf): only the chain is at fault.
    await t.http
      .post('/api/v1/certificates')
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(intermediate.pem)
      .expect(201);
    // Security level 0 lets Node serve the SHA-1 chain and the 1024-bit key, as the legacy servers do.
    for (const [name, certificate, chain] of cases) await tls.serve(name, certificate, chain, { ciphers: 'DEFAULT:@SECLEVEL=0' });
    await tls.listen();
    for (const [name] of cases) endpoints.set(name, await createEndpoint(name, tls.port));

    // openssl s_server sends what Node will not: TLS 1.0 only (as tls-v1-0.badssl.com) and a SHA-1 intermediate.
    const legacyKeys = await generateKeyPair('rsa-2048');
    const legacyLeaf = await leaf('tls-v1-0.example.test', { keys: legacyKeys });
    await serveWithOpenssl('tls-v1-0.example.test', legacyLeaf, intermediate, [
      '-min_protocol',
      'TLSv1',
      '-max_protocol',
      'TLSv1',
      '-cipher',
      'ECDHE-RSA-AES128-SHA:AES128-SHA:@SECLEVEL=0',
    ]);
    const sha1Leaf = await mintCertificate({
      issuer: sha1Intermediate,
      subject: 'CN=sha1-intermediate.example.test',
      sans: ['sha1-intermediate.example.test'],
    });
    await serveWithOpenssl('sha1-intermediate.example.test', sha1Leaf, sha1Intermediate, ['-cipher', 'DEFAULT:@SECLEVEL=0']);

    // As 3des.badssl.com, but with a modern suite besides: the agent reads the certificate through
    // Node, which cannot speak 3DES, and its profile then finds the 3DES suite among those accepted.
    const tripleDesLeaf = await leaf('3des.example.test', { keys: await generateKeyPair('rsa-2048') });
    const tripleDes = await startJsseServer(
      { certPem: tripleDesLeaf.pem + intermediate.pem, keyPem: await privateKeyPem(tripleDesLeaf.keys.privateKey) },
      { protocols: ['TLSv1.2'], cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'SSL_RSA_WITH_3DES_EDE_CBC_SHA'] },
    );
    legacyServers.push(tripleDes);
    endpoints.set('3des.example.test', await createEndpoint('3des.example.test', tripleDes.port));

    const run = await runAgentOnce(t.baseUrl, token);
    expect(run.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await tls.close();
    await Promise.all(legacyServers.map((server) => server.close()));
    rmSync(chainFiles, { recursive: true, force: true });
    await t.close();
  });

  /** openssl s_server for `dnsName`, sending `intermediate` after the leaf (-cert_chain). */
  async function serveWithOpenssl(dnsName: string, certificate: MintedCertificate, intermediate: MintedCertificate, args: string[]) {
    const chainFile = join(chainFiles, `${dnsName}.pem`);
    writeFileSync(chainFile, intermediate.pem);
    const keyPem = await privateKeyPem(certificate.keys.privateKey);
    const server = await startOpensslServer({ certPem: certificate.pem, keyPem }, ['-cert_chain', chainFile, ...args]);
    legacyServers.push(server);
    endpoints.set(dnsName, await createEndpoint(dnsName, server.port));
  }

  async function createEndpoint(dnsName: string, port: number): Promise<string> {
    const created = await t.http
      .post('/api/v1/endpoints')
      .set(bearer(admin))
      .send({ name: dnsName, dnsName, ipAddress: '127.0.0.1', port })
      .expect(201);
    return (created.body as { id: string }).id;
  }
  const findingsOf = async (dnsName: string) =>
    (
      (
        await t.http
          .get(`/api/v1/endpoints/${endpoints.get(dnsName)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as { findings: { code: string }[] }
    ).findings.map((f) => f.code);

  it.each<[string, string[]]>([
    ['modern.example.test', []],
    ['expired.example.test', ['expired']],
    ['wrong.host.example.test', ['hostname_mismatch']],
    ['self-signed.example.test', ['untrusted', 'self_signed']],
    ['untrusted-root.example.test', ['untrusted']],
    ['incomplete-chain.example.test', ['chain_incomplete']],
    ['rsa1024.example.test', ['weak_key']],
    ['tls-v1-0.example.test', ['legacy_protocol']],
    ['3des.example.test', ['weak_cipher']],
  ])('%s shows %j', async (dnsName, expected) => {
    expect(await findingsOf(dnsName)).toEqual(expected);
  });

  it('sha1-intermediate.example.test shows weak_signature for the SHA-1 intermediate it presents', async () => {
    // Whether a SHA-1 path still counts as trusted is the trust evaluation's to say; the signature is this finding's.
    expect(await findingsOf('sha1-intermediate.example.test')).toContain('weak_signature');
    expect(await findingsOf('sha1-intermediate.example.test')).not.toContain('hostname_mismatch');
  });
});
