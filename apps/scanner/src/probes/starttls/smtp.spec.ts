import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { SMTPServer } from 'smtp-server';
import { formatDeadline } from './dialogue';
import { upgradeSmtp } from './smtp';
import { upgradeAndHandshake } from '../../../test/support/starttls/text-servers';
import { describeUpgrader } from '../../../test/support/starttls/upgrader-suite';

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

describe('upgradeSmtp against a test server', () => {
  describeUpgrader({
    protocol: 'smtp',
    mint,
    upgrade: upgradeSmtp,
    refusal: {
      reply: '454 4.7.0 TLS not available due to temporary reason',
      error: 'upgrade refused: 454 4.7.0 TLS not available due to temporary reason',
    },
    stalledAfterGreeting: 'no reply to EHLO within 300 ms',
    stalledAtGreeting: 'no greeting within 300 ms',
    stalledAtUpgrade: 'no reply to STARTTLS within 300 ms',
    overlong: /^greeting: line longer than 8192 bytes$/,
  });

  it('writes whole-second deadlines in seconds, as the scan error shows them', () => {
    expect(formatDeadline(10_000)).toBe('10 s');
    expect(formatDeadline(300)).toBe('300 ms');
  });
});

describe('upgradeSmtp against smtp-server (the package) with STARTTLS on', () => {
  let server: SMTPServer;
  let port: number;
  let certificatePem: string;

  beforeAll(async () => {
    const minted = await mintCertificate({ subject: 'CN=mail.example.test', sans: ['mail.example.test'] });
    certificatePem = minted.pem;
    server = new SMTPServer({
      key: await privateKeyPem(minted.keys.privateKey),
      cert: minted.pem,
      authOptional: true,
      logger: false,
      // A banner of several lines, as some servers send, and a long EHLO reply.
      banner: 'test server\r\nsecond line of the banner',
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('upgrades and sees the server certificate', async () => {
    const fingerprint = await upgradeAndHandshake(port, upgradeSmtp, { serverName: 'mail.example.test' });
    expect(fingerprint).toBe(new X509Certificate(certificatePem).fingerprint256);
  });

  it('fails with "server did not offer STARTTLS" when STARTTLS is disabled', async () => {
    const plain = new SMTPServer({ disabledCommands: ['STARTTLS'], authOptional: true, logger: false });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', () => resolve()));
    const plainPort = (plain as unknown as { server: { address(): AddressInfo } }).server.address().port;
    try {
      await expect(upgradeAndHandshake(plainPort, upgradeSmtp, { serverName: 'mail.example.test' })).rejects.toThrow(
        'server did not offer STARTTLS',
      );
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });
});
