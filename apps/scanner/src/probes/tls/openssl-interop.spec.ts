import { spawnSync } from 'node:child_process';
import type { TlsProfile } from '@certkeeper/domain/protocol';
import { cipherSuiteName } from '@certkeeper/domain/tls';
import { generateKeyPair, mintCertificate } from '@certkeeper/domain/testing';
import { XMLParser } from 'fast-xml-parser';
import { profileTls as profileUnguarded } from '../tls-profile';
import { type Credentials, type LocalServer, privateKeyPem, startOpensslServer, testOutboundGuard } from '@certkeeper/net/testing';

// OpenSSL serves what Node will not: TLS 1.0 and 1.1, DHE, CAMELLIA, ARIA, CCM. (Debian's OpenSSL 3.0
// is built without 3DES, RC4, SEED and IDEA, so those are covered by the registry's tests only.)
// CI installs both tools (.ci/run), so there a missing one fails these tests; elsewhere they skip,
// saying so in their names.
const onPath = (command: string, versionFlag: string) => spawnSync(command, [versionFlag], { stdio: 'ignore' }).error === undefined;
const describeWhen = (available: boolean, tools: string) =>
  available || process.env.CI === 'true'
    ? describe
    : (name: string, body: () => void) =>
        describe.skip(`${name} [skipped: ${tools} not on the PATH; with CI=true this fails instead]`, body);
const OPENSSL = onPath('openssl', 'version');
const describeWithOpenssl = describeWhen(OPENSSL, 'openssl');
const describeWithSslscan = describeWhen(OPENSSL && onPath('sslscan', '--version'), 'openssl or sslscan');

const target = (port: number) => ({ host: '127.0.0.1', port, serverName: 'leaf.example.com' });
// Through OUTBOUND_DENY as the test run sets it, like the agent (testOutboundGuard, @certkeeper/net/testing).
const profileTls = (at: ReturnType<typeof target>) => profileUnguarded(at, { guard: testOutboundGuard() });
const supported = (profile: TlsProfile | null) =>
  Object.fromEntries((profile?.versions ?? []).filter((entry) => entry.supported).map((entry) => [entry.version, entry.cipherSuites]));

let credentials: Credentials;
const servers: LocalServer[] = [];

async function serve(args: string[]): Promise<LocalServer> {
  credentials ??= await generateKeyPair('rsa-2048')
    .then((keys) => mintCertificate({ keys, sans: ['leaf.example.com'] }))
    .then(async (minted) => ({ certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) }));
  const server = await startOpensslServer(credentials, args);
  servers.push(server);
  return server;
}

afterAll(() => Promise.all(servers.map((server) => server.close())));

describeWithOpenssl('profileTls against openssl s_server', () => {
  it('names every suite OpenSSL knows as OpenSSL does (IANA names)', () => {
    const listing = spawnSync('openssl', ['ciphers', '-stdname', '-V', 'ALL:COMPLEMENTOFALL:@SECLEVEL=0'], { encoding: 'utf8' }).stdout;
    const rows = [...listing.matchAll(/0x([0-9A-F]{2}),0x([0-9A-F]{2}) - (\S+)/g)];
    expect(rows.length).toBeGreaterThan(100);
    for (const [, high, low, ianaName] of rows) expect(cipherSuiteName(Number.parseInt(high + low, 16))).toBe(ianaName);
  });

  it('finds TLS 1.0 and 1.1 with DHE and CAMELLIA suites, in the server order', async () => {
    const server = await serve([
      '-min_protocol',
      'TLSv1',
      '-max_protocol',
      'TLSv1.1',
      '-cipher',
      'DHE-RSA-AES128-SHA:CAMELLIA256-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA:@SECLEVEL=0',
      '-serverpref',
    ]);
    const result = await profileTls(target(server.port));

    const expected = [
      'TLS_DHE_RSA_WITH_AES_128_CBC_SHA',
      'TLS_RSA_WITH_CAMELLIA_256_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
      'TLS_RSA_WITH_AES_128_CBC_SHA',
    ];
    expect(result.error).toBeNull();
    expect(supported(result.profile)).toEqual({ 'TLSv1.0': expected, 'TLSv1.1': expected });
    expect(result.profile).toMatchObject({ negotiatedVersion: 'TLSv1.1', negotiatedCipherSuite: 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA' });
  });

  it('finds ARIA, CCM and the TLS 1.3 CCM suites that Node does not enable', async () => {
    const server = await serve([
      '-min_protocol',
      'TLSv1.2',
      '-cipher',
      'ECDHE-ARIA128-GCM-SHA256:DHE-RSA-CAMELLIA256-SHA256:DHE-RSA-AES256-CCM:AES128-CCM8:AES256-SHA:@SECLEVEL=0',
      '-ciphersuites',
      'TLS_AES_128_CCM_8_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_256_GCM_SHA384',
      '-serverpref',
    ]);
    const result = await profileTls(target(server.port));

    expect(supported(result.profile)).toEqual({
      'TLSv1.2': [
        'TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256',
        'TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256',
        'TLS_DHE_RSA_WITH_AES_256_CCM',
        'TLS_RSA_WITH_AES_128_CCM_8',
        'TLS_RSA_WITH_AES_256_CBC_SHA',
      ],
      'TLSv1.3': ['TLS_AES_128_CCM_8_SHA256', 'TLS_AES_128_CCM_SHA256', 'TLS_AES_256_GCM_SHA384'],
    });
  });
});

interface SslscanCipher {
  sslversion: string;
  id: string;
  status: string;
}

describeWithSslscan('profileTls agrees with sslscan', () => {
  it('finds the same (version, suite) pairs and the same first choice per version', async () => {
    const server = await serve([
      '-min_protocol',
      'TLSv1',
      '-cipher',
      'ECDHE+aRSA:DHE+aRSA+AESGCM:kRSA+AES:CAMELLIA+aRSA:@SECLEVEL=0',
      '-serverpref',
    ]);
    const profile = (await profileTls(target(server.port))).profile;
    const scan = spawnSync(
      'sslscan',
      [
        '--no-colour',
        '--no-heartbleed',
        '--no-renegotiation',
        '--no-compression',
        '--no-fallback',
        '--no-groups',
        '--no-check-certificate',
        '--no-cipher-details',
        '--xml=-',
        `127.0.0.1:${server.port}`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const ciphers = sslscanCiphers(scan.stdout);

    // sslscan's XML carries OpenSSL's names and the code point; the code point maps to IANA.
    const theirs = ciphers.map((cipher) => `${cipher.sslversion} ${cipherSuiteName(Number.parseInt(cipher.id, 16))}`);
    const ours = (profile?.versions ?? []).flatMap((entry) => entry.cipherSuites.map((suite) => `${entry.version} ${suite}`));
    expect(theirs.length).toBeGreaterThan(40);
    expect(new Set(ours)).toEqual(new Set(theirs));
    expect(ours).toHaveLength(theirs.length);

    const preferred = ciphers.filter((cipher) => cipher.status === 'preferred');
    for (const cipher of preferred) {
      const entry = profile?.versions.find((version) => version.version === cipher.sslversion);
      expect(entry?.cipherSuites[0]).toBe(cipherSuiteName(Number.parseInt(cipher.id, 16)));
    }
  }, 30_000);
});

function sslscanCiphers(xml: string): SslscanCipher[] {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'cipher' });
  const document = parser.parse(xml) as { document?: { ssltest?: { cipher?: SslscanCipher[] } } };
  return document.document?.ssltest?.cipher ?? [];
}
