import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { STARTTLS_REQUEST, upgradeLdap } from './ldap';
import { StarttlsError } from './starttls';
import {
  type BinaryServer,
  type LdapMode,
  parseExtendedRequest,
  type ServerCredentials,
  startLdapServer,
} from '../../../test/support/starttls/binary-servers';
import {
  bytesLeftAfterUpgrade,
  connectPlain,
  OPENSSL_AVAILABLE,
  opensslStarttlsLeaf,
  upgradeThenHandshake,
} from '../../../test/support/starttls/clients';

jest.setTimeout(30_000);

let credentials: ServerCredentials;
let der: Buffer;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const minted = await mintCertificate({ subject: 'CN=leaf.example.com', sans: ['leaf.example.com'] });
  credentials = { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) };
  der = Buffer.from(minted.der);
});

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function ldapServer(mode: LdapMode): Promise<BinaryServer> {
  const server = await startLdapServer(mode, credentials);
  closers.push(() => server.close());
  return server;
}

/** A server that answers any first bytes with `reply`: for responses the LDAP test server would never send. */
async function replying(reply: Buffer): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('data', () => socket.write(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function failure(port: number, readTimeoutMs = 5000): Promise<{ error: unknown; elapsedMs: number }> {
  const socket = await connectPlain(port);
  const started = Date.now();
  try {
    await upgradeLdap(socket, { serverName: 'leaf.example.com', readTimeoutMs });
    return { error: null, elapsedMs: Date.now() - started };
  } catch (error) {
    return { error, elapsedMs: Date.now() - started };
  } finally {
    socket.destroy();
  }
}

async function message(port: number, readTimeoutMs?: number): Promise<string> {
  const { error } = await failure(port, readTimeoutMs);
  expect(error).toBeInstanceOf(StarttlsError);
  return (error as Error).message;
}

describe('upgradeLdap', () => {
  it('encodes the StartTLS request as RFC 4511 section 4.14.1 has it, messageID 1', () => {
    const oid = Buffer.from('1.3.6.1.4.1.1466.20037').toString('hex');
    expect(STARTTLS_REQUEST.toString('hex')).toBe(`301d02010177188016${oid}`);
    expect(parseExtendedRequest(STARTTLS_REQUEST)).toEqual({ messageId: 1, oid: '1.3.6.1.4.1.1466.20037' });
  });

  it("on success hands the socket to TLS: the server's leaf comes back", async () => {
    const server = await ldapServer('accept');
    const leaf = await upgradeThenHandshake(server.port, upgradeLdap);
    expect(leaf.raw.equals(der)).toBe(true);
    expect(server.requests.map((request) => parseExtendedRequest(request))).toEqual([{ messageId: 1, oid: '1.3.6.1.4.1.1466.20037' }]);
  });

  it('assembles a response that arrives a byte at a time', async () => {
    const server = await ldapServer('accept-trickle');
    const leaf = await upgradeThenHandshake(server.port, upgradeLdap);
    expect(leaf.raw.equals(der)).toBe(true);
  });

  it("never reads past the response's length: what follows is left for the TLS layer", async () => {
    const server = await ldapServer('accept-trailing');
    expect(await bytesLeftAfterUpgrade(server.port, upgradeLdap, 'TRAILING'.length)).toEqual({ paused: true, rest: 'TRAILING' });
  });

  it('reports a refusal with its result code and diagnostic message', async () => {
    const server = await ldapServer('refuse');
    expect(await message(server.port)).toBe('upgrade refused: LDAP result 2 (protocolError) StartTLS is not supported here');
  });

  it('reports a Notice of Disconnection for what it is', async () => {
    const server = await ldapServer('notice');
    expect(await message(server.port)).toBe(
      'server disconnected instead of answering StartTLS: LDAP result 52 (unavailable) server shutting down',
    );
  });

  it('gives up on a silent server after the read deadline, naming the step', async () => {
    const server = await ldapServer('stall');
    const started = Date.now();
    expect(await message(server.port, 300)).toBe('no response to the StartTLS request within 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('says the server hung up when it closes without a response', async () => {
    const server = await ldapServer('close');
    expect(await message(server.port)).toBe('server closed the connection before the response to the StartTLS request');
  });

  it('refuses a declared length over 64 KiB without waiting for the body', async () => {
    const port = await replying(Buffer.from([0x30, 0x84, 0x00, 0x10, 0x00, 0x01]));
    expect(await message(port)).toBe('LDAP response of 1048577 bytes exceeds 65536 bytes');
  });

  it('refuses the indefinite length, which LDAP forbids', async () => {
    const port = await replying(Buffer.from([0x30, 0x80, 0x02, 0x01, 0x01, 0x00, 0x00]));
    expect(await message(port)).toBe('malformed LDAP response: indefinite length');
  });

  it('says when the peer is not speaking LDAP at all', async () => {
    const port = await replying(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    expect(await message(port)).toBe('not an LDAP response: first byte 0x48, expected 0x30 (SEQUENCE)');
  });

  it('refuses a response that is not an ExtendedResponse', async () => {
    // A BindResponse ([APPLICATION 1]) with resultCode 0.
    const port = await replying(Buffer.from([0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00]));
    expect(await message(port)).toBe('unexpected LDAP response: operation tag 0x61, expected ExtendedResponse (0x78)');
  });

  it('refuses an element whose length runs past the message', async () => {
    const port = await replying(Buffer.from([0x30, 0x07, 0x02, 0x01, 0x01, 0x78, 0x09, 0x0a, 0x01]));
    expect(await message(port)).toBe('malformed LDAP response: truncated or invalid BER element');
  });
});

// CI installs openssl (.ci/run): there a missing one fails; elsewhere this skips, saying so.
(OPENSSL_AVAILABLE || process.env.CI === 'true'
  ? describe
  : (name: string, body: () => void) => describe.skip(`${name} [skipped: openssl not on the PATH; with CI=true this fails instead]`, body))(
  'the LDAP test server and openssl s_client -starttls ldap',
  () => {
    it('agree on the request, and openssl sees the leaf upgradeLdap captures', async () => {
      const server = await ldapServer('accept');
      const theirs = await opensslStarttlsLeaf(server.port, 'ldap');
      const ours = await upgradeThenHandshake(server.port, upgradeLdap);
      expect(server.requests.map((request) => parseExtendedRequest(request))).toEqual([
        { messageId: 1, oid: '1.3.6.1.4.1.1466.20037' },
        { messageId: 1, oid: '1.3.6.1.4.1.1466.20037' },
      ]);
      expect(theirs.equals(der)).toBe(true);
      expect(ours.raw.equals(theirs)).toBe(true);
    });
  },
);
