import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { execFile, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { upgradeFtp } from './ftp';
import { upgradeImap } from './imap';
import { upgradePop3 } from './pop3';
import { upgradeSmtp } from './smtp';
import type { Upgrader } from './starttls';
import { startTextServer, type TextProtocol, type TextServer, upgradeAndHandshake } from '../../../test/support/starttls/text-servers';
import { upgradeXmpp } from './xmpp';

// OpenSSL's own STARTTLS dialogues (s_client -starttls) against the same test servers must reach
// the same leaf certificate as our upgraders: a second, independent reading of each protocol.
// CI installs openssl (.ci/run), so there a missing one fails; elsewhere this skips, saying so.
const OPENSSL = spawnSync('openssl', ['version'], { stdio: 'ignore' }).error === undefined;
const describeWithOpenssl =
  OPENSSL || process.env.CI === 'true'
    ? describe
    : (name: string, body: () => void) =>
        describe.skip(`${name} [skipped: openssl not on the PATH; with CI=true this fails instead]`, body);

const run = promisify(execFile);

/** The first certificate s_client prints with -showcerts: the leaf. Asynchronous, since the server runs in this process. */
async function opensslLeaf(protocol: TextProtocol, port: number, serverName: string): Promise<string> {
  const args = ['s_client', '-connect', `127.0.0.1:${port}`, '-starttls', protocol, '-servername', serverName, '-showcerts'];
  // For XMPP the stream's `to` is -xmpphost, not the SNI name.
  if (protocol === 'xmpp') args.push('-xmpphost', serverName);
  const child = run('openssl', args, { timeout: 20_000 });
  child.child.stdin?.end();
  const { stdout } = await child;
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(stdout)?.[0];
  if (!pem) throw new Error(`openssl s_client -starttls ${protocol} printed no certificate:\n${stdout.slice(0, 2000)}`);
  return new X509Certificate(pem).fingerprint256;
}

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

const UPGRADERS: Record<TextProtocol, Upgrader> = {
  smtp: upgradeSmtp,
  imap: upgradeImap,
  pop3: upgradePop3,
  ftp: upgradeFtp,
  xmpp: upgradeXmpp,
};

describeWithOpenssl('the upgraders agree with openssl s_client -starttls', () => {
  const servers: TextServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it.each(Object.keys(UPGRADERS) as TextProtocol[])(
    '%s: both reach the same leaf certificate, the server one',
    async (protocol) => {
      const serverName = `${protocol}.example.test`;
      const server = await startTextServer({ protocol, serverName, credentials: await mint(serverName) });
      servers.push(server);

      const theirs = await opensslLeaf(protocol, server.port, serverName);
      const ours = await upgradeAndHandshake(server.port, UPGRADERS[protocol], { serverName });

      expect(ours).toBe(theirs);
      expect(ours).toBe(server.fingerprint256);
      expect(server.handshakes).toBe(2);
    },
    30_000,
  );
});
