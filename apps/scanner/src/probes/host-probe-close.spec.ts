import type { AddressInfo } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { HostWorkItem, StarttlsProtocol } from '@certkeeper/domain/protocol';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { testOutboundGuard } from '@certkeeper/net/testing';
import { probeHost } from './host-probe';
import { startLdapServer, startPostgresFront } from '../../test/support/starttls/binary-servers';
import { startTextServer, type TextProtocol } from '../../test/support/starttls/text-servers';

const item = (port: number, dnsName: string, starttls: StarttlsProtocol | null = null): HostWorkItem => ({
  endpointId: '00000000-0000-4000-8000-000000000001',
  type: 'host',
  dnsName,
  port,
  ipAddress: '127.0.0.1',
  starttls,
  tlsProfileDue: false,
});

/** What a TLS server saw of its sessions: completed handshakes, and how each session ended. */
interface SessionCounts {
  handshakes: number;
  /** The client's close_notify: the session's 'end'. */
  cleanCloses: number;
  /** An error after the handshake (ECONNRESET): what servers log as a broken session. */
  brokenSessions: number;
  /** Server sockets closed so far. */
  closed: number;
}

/**
 * A Node TLS server on loopback (TLS 1.3, whose session tickets make a client's destroy() a
 * reset) counting how its sessions end. `answerClose: false` keeps its side open after the
 * client's close_notify (allowHalfOpen), as a server that never answers it.
 */
async function startCountingServer(answerClose = true) {
  const minted = await mintCertificate({ subject: 'CN=close.example.test', sans: ['close.example.test'] });
  const counts: SessionCounts = { handshakes: 0, cleanCloses: 0, brokenSessions: 0, closed: 0 };
  const sockets = new Set<TLSSocket>();
  const server = createServer(
    { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey), allowHalfOpen: !answerClose },
    (socket: TLSSocket) => {
      sockets.add(socket);
      counts.handshakes += 1;
      socket.on('end', () => (counts.cleanCloses += 1));
      socket.on('error', () => (counts.brokenSessions += 1));
      socket.on('close', () => (counts.closed += 1));
      socket.resume();
    },
  );
  server.on('tlsClientError', () => (counts.brokenSessions += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `done`, for the server's view of a close that crosses the loopback after the probe settled. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('probeHost ends the TLS session politely (docs/decisions/0013-starttls-dialogues.md)', () => {
  it('completes the handshake and sends close_notify, so the server sees a finished session, not a reset', async () => {
    const server = await startCountingServer();
    try {
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await probeHost(item(server.port, 'close.example.test'), { guard: testOutboundGuard() }));
      expect(results.map((result) => result.error)).toEqual([null, null, null]);
      await until(() => server.counts.closed === 3);
      expect(server.counts).toEqual({ handshakes: 3, cleanCloses: 3, brokenSessions: 0, closed: 3 });
    } finally {
      await server.close();
    }
  });

  it('is not held by a server that never answers close_notify: the close has a short deadline of its own', async () => {
    const server = await startCountingServer(false);
    try {
      // Without the deadline this would wait for the server for ever: it keeps its side open.
      const result = await probeHost(item(server.port, 'close.example.test'), { guard: testOutboundGuard() });
      expect(result.error).toBeNull();
      expect(server.counts).toEqual({ handshakes: 1, cleanCloses: 1, brokenSessions: 0, closed: 0 });
    } finally {
      await server.close();
    }
  });

  it.each([
    // LDAPMessage { messageID 2, UnbindRequest }, in the test server's own reading of BER.
    { protocol: 'ldap' as const, start: startLdapServer, goodbye: '30050201024200' },
    // Nothing but close_notify: a Terminate before the StartupMessage is logged as a bad packet.
    { protocol: 'postgres' as const, start: startPostgresFront, goodbye: '' },
  ])("ends a $protocol session with the protocol's goodbye, if any, then close_notify", async ({ protocol, start, goodbye }) => {
    const minted = await mintCertificate({ subject: 'CN=directory.example.test', sans: ['directory.example.test'] });
    const server = await start('accept', { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) });
    try {
      const result = await probeHost(item(server.port, 'directory.example.test', protocol), { guard: testOutboundGuard() });
      expect(result.error).toBeNull();
      await until(() => server.sessions.length > 0);
      expect(server.sessions.map((session) => ({ received: session.received.toString('hex'), ended: session.ended }))).toEqual([
        { received: goodbye, ended: 'close_notify' },
      ]);
    } finally {
      await server.close();
    }
  });

  describe.each<TextProtocol>(['smtp', 'imap', 'pop3', 'ftp', 'xmpp'])('after the %s upgrade', (protocol) => {
    it("says the protocol's goodbye inside the TLS session, then close_notify", async () => {
      const serverName = `${protocol}.example.test`;
      const minted = await mintCertificate({ subject: `CN=${serverName}`, sans: [serverName] });
      const server = await startTextServer({
        protocol,
        serverName,
        credentials: { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) },
      });
      try {
        const result = await probeHost(item(server.port, serverName, protocol), { guard: testOutboundGuard() });
        expect(result.error).toBeNull();
        await until(() => server.cleanCloses + server.brokenSessions > 0);
        expect({ handshakes: server.handshakes, goodbyes: server.goodbyes, cleanCloses: server.cleanCloses }).toEqual({
          handshakes: 1,
          goodbyes: 1,
          cleanCloses: 1,
        });
        expect(server.brokenSessions).toBe(0);
      } finally {
        await server.close();
      }
    });
  });
});
