import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DataSource } from 'typeorm';
import { freePort } from '../src/common/net/free-port';
import { AGENT, type AgentRun, runAgentCycle, RUN_OUTBOUND_DENY } from './support/agent-process';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { startTarpit, SwappableTlsServer } from './support/tls-servers';

const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

/** The real agent for one cycle, with short deadlines: the probes here are all on loopback. */
const runAgentOnce = (apiUrl: string, token: string): Promise<AgentRun> =>
  runAgentCycle(apiUrl, token, { SCANNER_CONNECT_TIMEOUT_MS: '1000', SCANNER_HANDSHAKE_TIMEOUT_MS: '1000', ...RUN_OUTBOUND_DENY });

describe('the real agent against real TLS servers', () => {
  let t: TestApp;
  let admin: string;
  let apiUrl: string;
  let token: string;
  const tls = new SwappableTlsServer();
  let a: MintedCertificate;
  let b: MintedCertificate;

  beforeAll(async () => {
    t = await createTestApp();
    apiUrl = t.baseUrl;
    admin = await login(t);
    token = (await defaultScannerCredentials(t, admin)).token;
    [a, b] = await Promise.all([
      mintCertificate({ subject: 'CN=a.example.test', sans: ['a.example.test'] }),
      mintCertificate({ subject: 'CN=b.example.test', sans: ['b.example.test'] }),
    ]);
    await tls.serve('a.example.test', a);
    await tls.serve('b.example.test', b);
    await tls.listen();
  });
  afterAll(async () => {
    await tls.close();
    await t.close();
  });

  const endpoint = async (body: Record<string, unknown>) =>
    ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
  const detail = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as {
      currentCertificates: { fingerprint: string }[];
      errorSince: string | null;
      lastScanError: string | null;
      resolvedIp: string | null;
    };
  const current = async (id: string) => (await detail(id)).currentCertificates.map((c) => c.fingerprint);
  const cycle = async () => {
    const run = await runAgentOnce(apiUrl, token);
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
    return run;
  };

  it('observes, follows a rotation, and a rotation back without duplicating links; SNI picks among certificates on one listener', async () => {
    const first = await endpoint({ name: 'a', dnsName: 'a.example.test', ipAddress: '127.0.0.1', port: tls.port });
    const second = await endpoint({ name: 'b', dnsName: 'b.example.test', ipAddress: '127.0.0.1', port: tls.port });
    await cycle();
    expect(await current(first)).toEqual([sha256(a)]);
    expect(await current(second)).toEqual([sha256(b)]);
    expect((await detail(first)).resolvedIp).toBe('127.0.0.1');

    await tls.serve('a.example.test', b); // rotate a's name to certificate b
    await cycle();
    expect(await current(first)).toEqual([sha256(b)]);
    const historical = (
      await t.http
        .get(`/api/v1/certificates/${sha256(a)}/endpoints/historical`)
        .set(bearer(admin))
        .expect(200)
    ).body as { endpointId: string }[];
    expect(historical.map((h) => h.endpointId)).toEqual([first]);

    await tls.serve('a.example.test', a); // and back
    await cycle();
    expect(await current(first)).toEqual([sha256(a)]);
    const links = await t.app
      .get(DataSource)
      .query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1', [first]);
    expect(links[0].n).toBe(2);
    const history = (await t.http.get(`/api/v1/endpoints/${first}/history`).set(bearer(admin)).expect(200)).body as { success: boolean }[];
    expect(history.map((h) => h.success)).toEqual([true, true, true]);
    const profile = (await t.http.get(`/api/v1/endpoints/${first}/tls-profile`).set(bearer(admin)).expect(200)).body as {
      versions: { version: string; supported: boolean }[];
    };
    expect(profile.versions.find((v) => v.version === 'TLSv1.3')?.supported).toBe(true);
  }, 60_000);

  it('sets errorSince for an unreachable port and a tarpit, and clears it once the host answers', async () => {
    const tarpit = await startTarpit();
    const reservedPort = await freePort();
    const unreachable = await endpoint({ name: 'later', dnsName: 'a.example.test', ipAddress: '127.0.0.1', port: reservedPort });
    const silent = await endpoint({ name: 'tarpit', dnsName: 'a.example.test', ipAddress: '127.0.0.1', port: tarpit.port });
    try {
      const started = Date.now();
      await cycle();
      expect(Date.now() - started).toBeLessThan(20_000);
      const down = await detail(unreachable);
      expect(down.errorSince).not.toBeNull();
      expect(down.lastScanError).toContain('refused');
      const stalled = await detail(silent);
      expect(stalled.errorSince).not.toBeNull();
      expect(stalled.lastScanError).toContain('timed out');

      const recovered = new SwappableTlsServer();
      await recovered.serve('a.example.test', a);
      await recovered.listen(reservedPort);
      try {
        await cycle();
        expect(await detail(unreachable)).toMatchObject({ errorSince: null, lastScanError: null });
        expect(await current(unreachable)).toEqual([sha256(a)]);
      } finally {
        await recovered.close();
      }
    } finally {
      await tarpit.close();
    }
  }, 60_000);

  describe('SAML metadata served over HTTP', () => {
    let served = '';
    let http: Server;
    let metadataBase = '';

    beforeAll(async () => {
      http = createServer((req, res) => {
        if (req.url === '/huge') {
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.end(
            `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x">${' '.repeat(17 * 1024 * 1024)}</md:EntityDescriptor>`,
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
        res.end(served);
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
      metadataBase = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

    const ns = 'xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"';
    const key = (minted: MintedCertificate, use: string) =>
      `<md:KeyDescriptor use="${use}"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${Buffer.from(minted.der).toString('base64')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const entity = (entityId: string, signing: MintedCertificate[], extra = '') =>
      `<md:EntityDescriptor ${extra} entityID="${entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${signing.map((c) => key(c, 'signing')).join('')}<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${entityId}/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;

    it('follows a single entity through a key rollover and a removal, and links a federation aggregate', async () => {
      const [oldKey, newKey] = await Promise.all([mintCertificate({ subject: 'CN=idp-old' }), mintCertificate({ subject: 'CN=idp-new' })]);
      const id = await endpoint({ name: 'idp', type: 'saml', metadataUrl: `${metadataBase}/idp` });
      served = entity('https://idp.example.test', [oldKey], ns);
      await cycle();
      expect(await current(id)).toEqual([sha256(oldKey)]);
      // The history of a fetch records where the document came from, as a host scan's does.
      const history = (await t.http.get(`/api/v1/endpoints/${id}/history`).set(bearer(admin)).expect(200)).body as {
        success: boolean;
        resolvedIp: string | null;
      }[];
      expect(history).toMatchObject([{ success: true, resolvedIp: '127.0.0.1' }]);

      served = entity('https://idp.example.test', [oldKey, newKey], ns);
      await cycle();
      expect((await current(id)).sort()).toEqual([sha256(oldKey), sha256(newKey)].sort());

      served = entity('https://idp.example.test', [newKey], ns);
      await cycle();
      expect(await current(id)).toEqual([sha256(newKey)]);

      const members = await Promise.all([1, 2, 3].map((n) => mintCertificate({ subject: `CN=member-${n}` })));
      const federation = await endpoint({ name: 'federation', type: 'saml', metadataUrl: `${metadataBase}/federation` });
      served = `<md:EntitiesDescriptor ${ns}>${members.map((m, n) => entity(`https://member-${n}.example.test`, [m])).join('')}</md:EntitiesDescriptor>`;
      await cycle();
      expect((await current(federation)).sort()).toEqual(members.map(sha256).sort());
    }, 60_000);

    it('refuses an XXE payload, a billion-laughs payload and an oversized document', async () => {
      const id = await endpoint({ name: 'hostile', type: 'saml', metadataUrl: `${metadataBase}/hostile` });
      served = `<?xml version="1.0"?><!DOCTYPE md [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><md:EntityDescriptor ${ns} entityID="&xxe;"/>`;
      await cycle();
      expect((await detail(id)).lastScanError).toMatch(/DOCTYPE|entit/i);

      served = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><md:EntityDescriptor ${ns} entityID="&lol2;"/>`;
      await cycle();
      expect((await detail(id)).lastScanError).toMatch(/DOCTYPE|entit/i);

      const huge = await endpoint({ name: 'huge', type: 'saml', metadataUrl: `${metadataBase}/huge` });
      await cycle();
      expect((await detail(huge)).lastScanError).toMatch(/large|limit|bytes/i);
    }, 60_000);
  });

  it('finishes in-flight probes on SIGTERM before exiting', async () => {
    const tarpit = await startTarpit();
    const id = await endpoint({ name: 'slow', dnsName: 'a.example.test', ipAddress: '127.0.0.1', port: tarpit.port });
    const agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH ?? '',
        SCANNER_API_URL: apiUrl,
        SCANNER_TOKEN: token,
        SCANNER_HANDSHAKE_TIMEOUT_MS: '1500',
        ...RUN_OUTBOUND_DENY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => agent.once('exit', resolve));
    try {
      let output = '';
      agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // The start-up poll probes never-scanned endpoints: stop the agent while the tarpit holds the probe.
      const deadline = Date.now() + 10_000;
      while (tarpit.connections() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // When no probe arrived, the endpoint's error says why (an OUTBOUND_DENY covering loopback, say).
      const connections = tarpit.connections();
      const lastScanError = connections === 1 ? null : (await detail(id)).lastScanError;
      expect({ connections, lastScanError }).toEqual({ connections: 1, lastScanError: null });
      agent.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect((await detail(id)).lastScanError).toContain('timed out');
    } finally {
      // A failed expectation must not leave the agent running (Jest would never exit).
      if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
      await exited;
      await tarpit.close();
    }
  }, 30_000);

  it('exits non-zero when the API cannot be reached', async () => {
    const closed = await freePort();
    const run = await runAgentOnce(`http://127.0.0.1:${closed}`, token);
    expect(run.code).toBe(1);
    expect(run.output).toContain('ECONNREFUSED');
  });
});
