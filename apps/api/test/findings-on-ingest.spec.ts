import { mintCertificate, mintChain } from '@certkeeper/domain/testing';
import { importTrustedRoots } from './support/root-stores';
import { hostScanResult } from './support/scan-results';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';

const MODERN = {
  versions: [{ version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] }],
  negotiatedVersion: 'TLSv1.3',
  negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
};
const LEGACY = {
  versions: [{ version: 'TLSv1.0', supported: true, cipherSuites: ['TLS_RSA_WITH_AES_128_CBC_SHA'] }, ...MODERN.versions],
  negotiatedVersion: 'TLSv1.3',
  negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
};

// A host result recomputes its endpoint's findings only when it changed one of their inputs (the
// failing, the chain, its completeness, the TLS profile): the steady re-sighting costs nothing.
// Each change below must still show.
describe('findings as host results change their inputs', () => {
  let t: TestApp;
  let admin: string;
  let scannerToken: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
  });
  afterAll(() => t.close());

  const codesOf = async (id: string) =>
    ((await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as { findings: { code: string }[] }).findings.map(
      (finding) => finding.code,
    );
  const post = (result: unknown) =>
    t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scannerToken))
      .send({ results: [result] })
      .expect(200);

  it('follows the profile, the failing, the chain and its completeness, and keeps them on a steady re-sighting', async () => {
    const chain = await mintChain();
    const { id } = (
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(admin))
        .send({ name: 'changing', dnsName: 'leaf.example.com', port: 443 })
        .expect(201)
    ).body as { id: string };
    const withoutRoot = [chain.leaf, chain.intermediate];
    // A minute apart: the latest successful scan is the one findings read.
    const scan = (overrides: Record<string, unknown> = {}) => {
      t.clock.advance(60_000);
      return post(hostScanResult(id, withoutRoot, t.clock.now(), { tlsProfile: MODERN, ...overrides }));
    };

    await scan();
    expect(await codesOf(id)).toEqual(['untrusted', 'chain_incomplete']);
    await scan();
    expect(await codesOf(id)).toEqual(['untrusted', 'chain_incomplete']);

    await scan({ tlsProfile: LEGACY });
    expect(await codesOf(id)).toEqual(['untrusted', 'chain_incomplete', 'legacy_protocol']);
    await scan();
    expect(await codesOf(id)).toEqual(['untrusted', 'chain_incomplete']);

    await scan({ success: false, error: 'connect ECONNREFUSED', chain: [] });
    expect(await codesOf(id)).toContain('scan_failing');
    await scan({ success: false, error: 'connect ECONNREFUSED', chain: [] });
    expect(await codesOf(id)).toContain('scan_failing');
    await scan();
    expect(await codesOf(id)).toEqual(['untrusted', 'chain_incomplete']);

    // The root becomes trusted: the same chain, presented again, now reaches an anchor.
    await importTrustedRoots(t, admin, [chain.root]);
    await scan();
    expect(await codesOf(id)).toEqual([]);

    // A certificate for another name, the chain as complete as before.
    const other = await mintCertificate({ issuer: chain.intermediate, subject: 'CN=other.example.com', sans: ['other.example.com'] });
    await scan({ chain: [other.pem, chain.intermediate.pem] });
    expect(await codesOf(id)).toEqual(['hostname_mismatch']);

    // A server that stops sending its intermediate.
    await scan({ chain: [chain.leaf.pem] });
    expect(await codesOf(id)).toEqual(['chain_incomplete']);
  });
});
