import { spawn, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { cipherSuiteName } from '@certkeeper/domain/tls';
import { mintCertificate, type MintedCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { XMLParser } from 'fast-xml-parser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { type AgentRun, runAgentCycle, RUN_OUTBOUND_DENY } from './support/agent-process';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';

// docs/api-contract.md section 13, end to end: the real agent, built, scans host endpoints whose
// `starttls` is smtp against a real SMTP server (the smtp-server package) on loopback.

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');

// CI installs openssl and sslscan (.ci/run), so there a missing one fails these tests; elsewhere
// they skip, saying so in their names (as apps/scanner/src/probes/tls/openssl-interop.spec.ts).
const onPath = (command: string, versionFlag: string) => spawnSync(command, [versionFlag], { stdio: 'ignore' }).error === undefined;
const itWhen = (available: boolean, tool: string) =>
  available || process.env.CI === 'true'
    ? it
    : (name: string, body: () => Promise<void>, timeout?: number) =>
        it.skip(`${name} [skipped: ${tool} not on the PATH; with CI=true this fails instead]`, body, timeout);
const itWithOpenssl = itWhen(onPath('openssl', 'version'), 'openssl');
const itWithSslscan = itWhen(onPath('sslscan', '--version'), 'sslscan');

/**
 * A tool's stdout, run without blocking: the SMTP servers live in this process, so spawnSync
 * would stall them for as long as the tool waits on them.
 */
function runTool(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => child.kill(), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

/** The real agent for one cycle; the SMTP dialogue spends from the handshake's budget, generous for a busy 2-core runner. */
const runAgentOnce = (apiUrl: string, token: string): Promise<AgentRun> =>
  runAgentCycle(apiUrl, token, { SCANNER_CONNECT_TIMEOUT_MS: '2000', SCANNER_HANDSHAKE_TIMEOUT_MS: '5000', ...RUN_OUTBOUND_DENY });

/** An SMTP server on 127.0.0.1 that takes no mail; STARTTLS with `certificate` unless hidden. */
async function startSmtp(
  certificate: MintedCertificate,
  options: Partial<SMTPServerOptions> = {},
): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    secure: false,
    key: await privateKeyPem(certificate.keys.privateKey),
    cert: certificate.pem,
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    onData: (stream, _session, done) => {
      stream.resume();
      stream.once('end', () => done());
    },
    ...options,
  });
  // An abandoned handshake (the TLS profile drops every connection after the ServerHello) is an
  // error event on the server; it must not end the test process.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.server.address() as AddressInfo).port };
}

interface SslscanCipher {
  sslversion: string;
  id: string;
  status: string;
}

describe('the real agent against SMTP servers with STARTTLS', () => {
  let t: TestApp;
  let admin: string;
  let token: string;
  let mail: MintedCertificate;
  let smtp: { server: SMTPServer; port: number };
  let plainOnly: { server: SMTPServer; port: number };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    token = (await defaultScannerCredentials(t, admin)).token;
    mail = await mintCertificate({ subject: 'CN=mail.example.test', sans: ['mail.example.test'] });
    smtp = await startSmtp(mail);
    // Speaks SMTP, but its EHLO answer lists no STARTTLS (and the command is refused).
    plainOnly = await startSmtp(mail, { hideSTARTTLS: true, disabledCommands: ['AUTH', 'STARTTLS'] });
  });
  afterAll(async () => {
    await Promise.all([smtp, plainOnly].map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
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
  const history = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}/history`).set(bearer(admin)).expect(200)).body as {
      success: boolean;
      error: string | null;
    }[];
  const cycle = async () => {
    const run = await runAgentOnce(t.baseUrl, token);
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
  };

  let upgraded = '';
  let refused = '';
  let implicit = '';

  it('captures the certificate behind SMTP STARTTLS, and fails where the server offers none or speaks no TLS at once', async () => {
    upgraded = await endpoint({ name: 'mail', dnsName: 'mail.example.test', ipAddress: '127.0.0.1', port: smtp.port, starttls: 'smtp' });
    refused = await endpoint({
      name: 'no starttls',
      dnsName: 'mail.example.test',
      ipAddress: '127.0.0.1',
      port: plainOnly.port,
      starttls: 'smtp',
    });
    // The same SMTP port scanned as implicit TLS: the ClientHello meets a 220 greeting.
    implicit = await endpoint({ name: 'implicit', dnsName: 'implicit.example.test', ipAddress: '127.0.0.1', port: smtp.port });
    await cycle();

    const scanned = await detail(upgraded);
    expect(scanned).toMatchObject({ errorSince: null, lastScanError: null, resolvedIp: '127.0.0.1' });
    expect(scanned.currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(mail.der)]);
    expect((await history(upgraded)).map((h) => h.success)).toEqual([true]);

    const failed = await detail(refused);
    expect(failed.errorSince).not.toBeNull();
    expect(failed.lastScanError).toContain('did not offer STARTTLS');
    expect(failed.currentCertificates).toEqual([]);
    expect(await history(refused)).toEqual([expect.objectContaining({ success: false, error: failed.lastScanError })]);

    const mismatched = await detail(implicit);
    expect(mismatched.errorSince).not.toBeNull();
    expect(mismatched.currentCertificates).toEqual([]);
  }, 90_000);

  it('ends the TLS session it upgraded to as a mail client does: QUIT inside it, then close_notify', async () => {
    // What smtp-server itself records of each connection: its TLS sessions, commands and closes.
    const secured = new Set<string>();
    const quitInTls = new Set<string>();
    const closes = new Map<string, boolean>();
    type Entry = { tnx?: string; cid?: string; command?: string; hadError?: boolean };
    const record = (entry: Entry) => {
      if (entry.tnx === 'command' && entry.command === 'QUIT' && entry.cid && secured.has(entry.cid)) quitInTls.add(entry.cid);
      if (entry.tnx === 'close' && entry.cid && entry.hadError !== undefined) closes.set(entry.cid, entry.hadError);
    };
    const logger = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((level) => [level, record]));
    const recorded = await startSmtp(mail, {
      logger: logger as unknown as SMTPServerOptions['logger'],
      onSecure: (_socket, session, done) => {
        secured.add(session.id);
        done();
      },
    });
    try {
      await endpoint({ name: 'recorded', dnsName: 'mail.example.test', ipAddress: '127.0.0.1', port: recorded.port, starttls: 'smtp' });
      await cycle();
      // The close crosses the loopback as the agent exits.
      for (let i = 0; i < 100 && [...secured].some((id) => !closes.has(id)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      // One completed TLS session (the TLS profile's partial hellos never complete one), ended by
      // QUIT inside it and closed without an error.
      expect(secured.size).toBe(1);
      const [session] = [...secured];
      expect({ quit: quitInTls.has(session), closedWithError: closes.get(session) }).toEqual({ quit: true, closedWithError: false });
    } finally {
      await new Promise<void>((resolve) => recorded.server.close(() => resolve()));
    }
  }, 60_000);

  it('ends a scan whose server stalls mid-dialogue by the handshake deadline, naming the step', async () => {
    // Greets like an SMTP server, then never answers EHLO.
    const stall = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.write('220 stall.example.test ESMTP\r\n');
    });
    await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (stall.address() as AddressInfo).port;
      const stalled = await endpoint({ name: 'stall', dnsName: 'stall.example.test', ipAddress: '127.0.0.1', port, starttls: 'smtp' });
      const started = Date.now();
      await cycle();
      // SCANNER_HANDSHAKE_TIMEOUT_MS is 5 s; the rest of the cycle is quick on loopback.
      expect(Date.now() - started).toBeLessThan(15_000);
      const failed = await detail(stalled);
      expect(failed.errorSince).not.toBeNull();
      expect(failed.lastScanError).toMatch(/^no reply to EHLO within [1-5] s$/);
    } finally {
      stall.close();
    }
  }, 60_000);

  itWithOpenssl(
    'captures the certificate openssl s_client -starttls smtp reports for the same server',
    async () => {
      // stdin is /dev/null: s_client ends after the handshake.
      const client = await runTool(
        'openssl',
        ['s_client', '-starttls', 'smtp', '-connect', `127.0.0.1:${smtp.port}`, '-servername', 'mail.example.test', '-showcerts'],
        20_000,
      );
      const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(client)?.[0];
      expect(pem).toBeDefined();
      const theirs = sha256(new X509Certificate(pem!).raw);
      expect((await detail(upgraded)).currentCertificates.map((c) => c.fingerprint)).toEqual([theirs]);
    },
    30_000,
  );

  itWithSslscan(
    'profiles TLS through the upgrade as sslscan --starttls-smtp does: the same versions and suites, the same first choice',
    async () => {
      // The first cycle profiled the endpoint: none was stored, so its work item asked for one.
      const profile = (await t.http.get(`/api/v1/endpoints/${upgraded}/tls-profile`).set(bearer(admin)).expect(200)).body as {
        versions: { version: string; supported: boolean; cipherSuites: string[] }[];
      };
      const scan = await runTool(
        'sslscan',
        [
          '--starttls-smtp',
          '--no-colour',
          '--no-heartbleed',
          '--no-renegotiation',
          '--no-compression',
          '--no-fallback',
          '--no-groups',
          '--no-check-certificate',
          '--no-cipher-details',
          '--xml=-',
          `127.0.0.1:${smtp.port}`,
        ],
        60_000,
      );
      const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'cipher' });
      const ciphers = (parser.parse(scan) as { document?: { ssltest?: { cipher?: SslscanCipher[] } } }).document?.ssltest?.cipher ?? [];
      // sslscan's XML carries OpenSSL's names and the code point; the code point maps to IANA.
      const theirs = ciphers.map((cipher) => `${cipher.sslversion} ${cipherSuiteName(Number.parseInt(cipher.id, 16))}`);
      const ours = profile.versions.flatMap((entry) => entry.cipherSuites.map((suite) => `${entry.version} ${suite}`));
      expect(theirs.length).toBeGreaterThan(3);
      expect(new Set(ours)).toEqual(new Set(theirs));
      expect(ours).toHaveLength(theirs.length);
      expect(profile.versions.filter((v) => v.supported).map((v) => v.version)).toEqual(
        [...new Set(ciphers.map((c) => c.sslversion))].sort(),
      );
      for (const cipher of ciphers.filter((c) => c.status === 'preferred')) {
        const entry = profile.versions.find((version) => version.version === cipher.sslversion);
        expect(entry?.cipherSuites[0]).toBe(cipherSuiteName(Number.parseInt(cipher.id, 16)));
      }
    },
    90_000,
  );
});
