import { parse } from 'csv-parse/sync';
import { webcrypto } from 'node:crypto';
import { mintCertificate, mintChain, type MintedCertificate } from '@certkeeper/domain/testing';
import { MaintenanceService } from '../src/modules/maintenance/maintenance.service';
import { DAY } from './support/fake-clock';
import { hostScanResult } from './support/scan-results';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';

interface Finding {
  code: string;
  severity: string;
  message: string;
}
interface EndpointBody {
  id: string;
  name: string;
  findings: Finding[];
  ignoredFindings: string[];
}

// The stored findings of docs/api-contract.md section 18 through the API: what each endpoint
// shows, what it ignores, the list's filters, the dashboard and the CSV export. Which finding each
// kind of server earns, scanned by the real agent, is agent-findings.spec.ts.
describe('findings', () => {
  let t: TestApp;
  let admin: string;
  let scannerToken: string;
  let chain: Awaited<ReturnType<typeof mintChain>>;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
    chain = await mintChain();
  });
  afterAll(() => t.close());

  const createEndpoint = async (body: Record<string, unknown>) =>
    (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as EndpointBody;
  const getEndpoint = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
  const codes = (endpoint: { findings: Finding[] }) => endpoint.findings.map((f) => f.code);
  const postResults = (results: unknown[]) =>
    t.http.post('/api/v1/scanner/results').set(bearer(scannerToken)).send({ results }).expect(200);
  // Each endpoint on a port of its own: the same dnsName and port twice is a duplicate (409).
  let nextPort = 10_000;
  const scanned = async (name: string, dnsName: string, presented: MintedCertificate[], overrides: Record<string, unknown> = {}) => {
    const endpoint = await createEndpoint({ name, dnsName, port: (nextPort += 1) });
    await postResults([hostScanResult(endpoint.id, presented, t.clock.now(), overrides)]);
    return getEndpoint(endpoint.id);
  };
  const list = async (query: string) =>
    (await t.http.get(`/api/v1/endpoints?${query}`).set(bearer(admin)).expect(200)).body as { items: EndpointBody[]; totalCount: number };

  it('shows a scanned host with a matching, complete chain and a modern profile without findings', async () => {
    // Not in any root store (the test app seeds none): untrusted is the one finding such a host has.
    const endpoint = await scanned('modern', 'leaf.example.com', [chain.leaf, chain.intermediate, chain.root], {
      tlsProfile: {
        versions: [{ version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] }],
        negotiatedVersion: 'TLSv1.3',
        negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
      },
    });
    expect(codes(endpoint)).toEqual(['untrusted']);
    expect(endpoint.findings[0]).toEqual({ code: 'untrusted', severity: 'warning', message: expect.stringMatching(/root store/) });
  });

  it('shows each finding a scan reveals, critical first, each with a sentence', async () => {
    const endpoint = await scanned('wrong host, no chain, TLS 1.0 with 3DES', 'other.example.com', [chain.leaf], {
      tlsProfile: {
        versions: [{ version: 'TLSv1.0', supported: true, cipherSuites: ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'] }],
        negotiatedVersion: 'TLSv1.0',
        negotiatedCipherSuite: 'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
      },
    });
    expect(endpoint.findings.map((f) => [f.code, f.severity])).toEqual([
      ['hostname_mismatch', 'critical'],
      ['untrusted', 'warning'],
      ['chain_incomplete', 'warning'],
      ['legacy_protocol', 'warning'],
      ['weak_cipher', 'warning'],
    ]);
  });

  it('judges a certificate that several endpoints show, in one post, by each endpoint: its name, its chain, its scan', async () => {
    const [matching, mismatched, failing] = await Promise.all(
      ['shared a', 'shared b', 'shared c'].map((name, index) =>
        createEndpoint({ name, dnsName: index === 1 ? 'other.example.com' : 'leaf.example.com', port: (nextPort += 1) }),
      ),
    );
    await postResults([
      hostScanResult(matching.id, [chain.leaf, chain.intermediate, chain.root], t.clock.now()),
      hostScanResult(mismatched.id, [chain.leaf], t.clock.now()),
      hostScanResult(failing.id, [chain.leaf, chain.intermediate, chain.root], t.clock.now()),
    ]);
    await postResults([hostScanResult(failing.id, [], t.clock.now(), { success: false, error: 'connect ECONNREFUSED', chain: [] })]);
    expect(codes(await getEndpoint(matching.id))).toEqual(['untrusted']);
    expect(codes(await getEndpoint(mismatched.id))).toEqual(['hostname_mismatch', 'untrusted', 'chain_incomplete']);
    expect(codes(await getEndpoint(failing.id))).toEqual(['scan_failing', 'untrusted']);
  });

  it('shows scan_failing while scans fail, and not once one succeeds', async () => {
    const endpoint = await scanned('failing', 'leaf.example.com', [], { success: false, error: 'connect ECONNREFUSED', chain: [] });
    expect(codes(endpoint)).toContain('scan_failing');
    await postResults([hostScanResult(endpoint.id, [chain.leaf, chain.intermediate, chain.root], t.clock.now())]);
    expect(codes(await getEndpoint(endpoint.id))).not.toContain('scan_failing');
  });

  it('shows a SHA-1 intermediate the server presents as weak_signature', async () => {
    // An RSA key made for SHA-1 signs with sha1WithRSAEncryption: the root signs the intermediate so.
    const sha1Root = await mintCertificate({ subject: 'CN=SHA-1 Root', ca: true, keys: await rsaKeys(2048, 'SHA-1') });
    const sha1Intermediate = await mintCertificate({ subject: 'CN=SHA-1 Intermediate', issuer: sha1Root, ca: true });
    const leaf = await mintCertificate({ issuer: sha1Intermediate, sans: ['sha1.example.com'], subject: 'CN=sha1.example.com' });
    const endpoint = await scanned('sha1 intermediate', 'sha1.example.com', [leaf, sha1Intermediate, sha1Root]);
    expect(codes(endpoint)).toEqual(['untrusted', 'weak_signature']);
    // The same leaf and intermediate under a SHA-256 root: only the presented intermediate decides.
    const clean = await scanned('sha256 chain', 'leaf.example.com', [chain.leaf, chain.intermediate, chain.root]);
    expect(codes(clean)).toEqual(['untrusted']);
  });

  it('shows weak keys, self-signed and expired certificates on uploads, and expired once the clock passes notAfter', async () => {
    const weak = await mintCertificate({
      subject: 'CN=weak.example.com',
      sans: ['weak.example.com'],
      keys: await rsaKeys(1024),
      notAfter: new Date(t.clock.now().getTime() + 2 * DAY),
    });
    const endpoint = await createEndpoint({ name: 'uploaded', dnsName: 'weak.example.com' });
    await t.http
      .post(`/api/v1/endpoints/${endpoint.id}/certificate`)
      .query({ certUse: 'tls' })
      .set(bearer(admin))
      .send(weak.pem)
      .expect(201);
    expect(codes(await getEndpoint(endpoint.id))).toEqual(['untrusted', 'self_signed', 'weak_key']);

    t.clock.advance(3 * DAY);
    admin = await login(t); // the session expired with the days that passed
    // The clock alone changes nothing stored until the hourly pass recomputes.
    await t.app.get(MaintenanceService).runTask('check-revocation');
    expect(codes(await getEndpoint(endpoint.id))).toEqual(['expired', 'untrusted', 'self_signed', 'weak_key']);
  });

  describe('ignoredFindings', () => {
    it('hides the codes an endpoint ignores, in its findings and its filters, and shows them again when cleared', async () => {
      const endpoint = await scanned('ignoring', 'ignored.example.com', [chain.leaf]);
      expect(codes(endpoint)).toEqual(['hostname_mismatch', 'untrusted', 'chain_incomplete']);

      const patched = (
        await t.http
          .patch(`/api/v1/endpoints/${endpoint.id}`)
          .set(bearer(admin))
          .send({ ignoredFindings: ['untrusted', 'chain_incomplete'] })
          .expect(200)
      ).body as EndpointBody;
      expect(patched.ignoredFindings).toEqual(['untrusted', 'chain_incomplete']);
      expect(codes(patched)).toEqual(['hostname_mismatch']);
      expect((await list('finding=untrusted&q=ignoring')).totalCount).toBe(0);

      // PATCH without it keeps it; PUT replaces every writable field, so without it ignores none.
      await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ notes: 'kept' }).expect(200);
      expect((await getEndpoint(endpoint.id)).ignoredFindings).toEqual(['untrusted', 'chain_incomplete']);
      const put = (
        await t.http
          .put(`/api/v1/endpoints/${endpoint.id}`)
          .set(bearer(admin))
          .send({ name: 'ignoring', dnsName: 'leaf.example.com', port: 9999 })
          .expect(200)
      ).body as EndpointBody;
      expect(put.ignoredFindings).toEqual([]);
      // The new dnsName matches the leaf: hostname_mismatch went with the change.
      expect(codes(put)).toEqual(['untrusted', 'chain_incomplete']);
    });

    it('is taken on create', async () => {
      const endpoint = await createEndpoint({ name: 'ignoring on create', dnsName: 'x.example.com', ignoredFindings: ['self_signed'] });
      expect(endpoint.ignoredFindings).toEqual(['self_signed']);
      expect((await getEndpoint(endpoint.id)).ignoredFindings).toEqual(['self_signed']);
    });

    it('refuses anything but finding codes with a sentence, changing nothing', async () => {
      const endpoint = await createEndpoint({ name: 'refusing', dnsName: 'r.example.com' });
      for (const ignoredFindings of [['not_a_code'], 'expired', [1]]) {
        const response = await t.http.patch(`/api/v1/endpoints/${endpoint.id}`).set(bearer(admin)).send({ ignoredFindings }).expect(400);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        expect(response.text).toMatch(/ignoredFindings/);
      }
      expect((await getEndpoint(endpoint.id)).ignoredFindings).toEqual([]);
    });
  });

  describe('the list', () => {
    it('filters by finding (repeatable: any of them) and by has_findings', async () => {
      const mismatch = await scanned('filter mismatch', 'nope.example.com', [chain.leaf, chain.intermediate, chain.root]);
      const legacy = await scanned('filter legacy', 'leaf.example.com', [chain.leaf, chain.intermediate, chain.root], {
        tlsProfile: {
          versions: [{ version: 'TLSv1.1', supported: true, cipherSuites: ['TLS_RSA_WITH_AES_128_CBC_SHA'] }],
          negotiatedVersion: 'TLSv1.1',
          negotiatedCipherSuite: 'TLS_RSA_WITH_AES_128_CBC_SHA',
        },
      });
      const clean = await createEndpoint({ name: 'filter clean', type: 'manual' });
      const names = (body: { items: EndpointBody[] }) => body.items.map((e) => e.name);

      expect(names(await list('q=filter&finding=hostname_mismatch'))).toEqual([mismatch.name]);
      expect(names(await list('q=filter&finding=hostname_mismatch&finding=legacy_protocol'))).toEqual([legacy.name, mismatch.name]);
      expect(names(await list('q=filter&has_findings=true'))).toEqual([legacy.name, mismatch.name]);
      expect(names(await list('q=filter&has_findings=false'))).toEqual([clean.name]);
      expect((await list('q=filter&finding=legacy_protocol')).totalCount).toBe(1);
    });

    it('refuses an unknown finding code and a has_findings that is not a boolean', async () => {
      const unknown = await t.http.get('/api/v1/endpoints?finding=nonsense').set(bearer(admin)).expect(400);
      expect(unknown.text).toMatch(/finding must be one of expired/);
      const notBoolean = await t.http.get('/api/v1/endpoints?has_findings=maybe').set(bearer(admin)).expect(400);
      expect(notBoolean.text).toMatch(/has_findings must be true or false/);
    });

    it('exports the codes joined with "; " in the CSV findings column', async () => {
      const endpoint = await scanned('csv findings', 'csv.example.com', [chain.leaf]);
      const csv = await t.http.get('/api/v1/endpoints?format=csv&q=csv%20findings').set(bearer(admin)).expect(200);
      const rows = parse<Record<string, string>>(csv.text, { columns: true });
      expect(rows).toHaveLength(1);
      expect(rows[0].id).toBe(endpoint.id);
      expect(rows[0].findings).toBe('hostname_mismatch; untrusted; chain_incomplete');
    });
  });

  it('counts endpoints per code on the dashboard and lists those with a critical finding first', async () => {
    const fresh = await createTestApp();
    try {
      const token = await login(fresh);
      const scanner = (await defaultScannerCredentials(fresh, token)).token;
      const create = async (name: string, dnsName: string) =>
        ((await fresh.http.post('/api/v1/endpoints').set(bearer(token)).send({ name, dnsName }).expect(201)).body as EndpointBody).id;
      const warningOnly = await create('a warning only', 'leaf.example.com');
      const critical = await create('z critical', 'elsewhere.example.com');
      await fresh.http
        .post('/api/v1/scanner/results')
        .set(bearer(scanner))
        .send({
          results: [
            hostScanResult(warningOnly, [chain.leaf, chain.intermediate, chain.root], fresh.clock.now()),
            hostScanResult(critical, [chain.leaf, chain.intermediate, chain.root], fresh.clock.now()),
          ],
        })
        .expect(200);
      const dashboard = (await fresh.http.get('/api/v1/dashboard').set(bearer(token)).expect(200)).body as {
        counts: { findings: Record<string, number> };
        findingEndpoints: { id: string; name: string; type: string; findings: Finding[] }[];
      };
      expect(dashboard.counts.findings).toEqual({ untrusted: 2, hostname_mismatch: 1 });
      expect(dashboard.findingEndpoints.map((e) => [e.id, e.type, e.findings.map((f) => f.code)])).toEqual([
        [critical, 'host', ['hostname_mismatch', 'untrusted']],
        [warningOnly, 'host', ['untrusted']],
      ]);
    } finally {
      await fresh.close();
    }
  });
});

/** RSA keys of a size and signature hash the minting helpers do not offer (1024 bits, SHA-1): what legacy CAs used. */
function rsaKeys(modulusLength: number, hash = 'SHA-256'): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength, publicExponent: new Uint8Array([1, 0, 1]), hash }, true, [
    'sign',
    'verify',
  ]);
}
