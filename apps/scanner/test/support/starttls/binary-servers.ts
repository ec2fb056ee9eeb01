import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** The leaf a test server presents after the upgrade, as PEM. */
export interface ServerCredentials {
  key: string;
  cert: string;
}

export interface BinaryServer {
  port: number;
  /** Every request the server received, as sent: the LDAP message or the 8-byte SSLRequest. */
  requests: Buffer[];
  /**
   * Each TLS session that ended after its handshake: what the client sent inside it, and whether
   * it ended with the client's close_notify or an error (a reset).
   */
  sessions: { received: Buffer; ended: 'close_notify' | 'error' }[];
  close(): Promise<void>;
}

/**
 * How the test LDAP server answers StartTLS: accept (then TLS), accept-trickle (the response a
 * byte at a time, then TLS), accept-trailing (the response and 'TRAILING' in one write, no TLS:
 * for checking the upgrade reads no further), refuse (resultCode 2 protocolError), notice (a
 * Notice of Disconnection, resultCode 52), stall (never answers), close (hangs up).
 */
export type LdapMode = 'accept' | 'accept-trickle' | 'accept-trailing' | 'refuse' | 'notice' | 'stall' | 'close';

/** accept ('S', then TLS), accept-trailing ('S' and 'XYZ', no TLS), refuse ('N'), error (an ErrorResponse), stall, close. */
export type PostgresMode = 'accept' | 'accept-trailing' | 'refuse' | 'error' | 'stall' | 'close';

const STARTTLS_OID = '1.3.6.1.4.1.1466.20037';
const NOTICE_OF_DISCONNECTION_OID = '1.3.6.1.4.1.1466.20036';
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const MAX_REQUEST_BYTES = 1024;

// The test servers' BER is written independently of ldap.ts, so that a mistake in one is not
// mirrored in the other; openssl s_client checks both against a third implementation.
function ber(tag: number, value: Buffer): Buffer {
  const n = value.length;
  const length = n < 0x80 ? [n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), value]);
}

/** One element at `offset`: its tag, value and the offset after it; null when incomplete. */
function element(data: Buffer, offset: number): { tag: number; value: Buffer; end: number } | null {
  if (data.length < offset + 2) return null;
  let length = data[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (data.length < start + count) return null;
    length = data.readUIntBE(start, count);
    start += count;
  }
  if (data.length < start + length) return null;
  return { tag: data[offset], value: data.subarray(start, start + length), end: start + length };
}

/** The messageID and requestName of an ExtendedRequest, or throws: the server checks what it got. */
export function parseExtendedRequest(message: Buffer): { messageId: number; oid: string } {
  const outer = element(message, 0);
  if (!outer || outer.tag !== 0x30) throw new Error('not an LDAPMessage');
  const id = element(outer.value, 0);
  if (!id || id.tag !== 0x02) throw new Error('no messageID');
  const operation = element(outer.value, id.end);
  if (!operation || operation.tag !== 0x77) throw new Error(`not an ExtendedRequest: tag ${operation?.tag}`);
  const name = element(operation.value, 0);
  if (!name || name.tag !== 0x80) throw new Error('no requestName');
  return { messageId: id.value.readUIntBE(0, id.value.length), oid: name.value.toString('latin1') };
}

function extendedResponse(messageId: number, resultCode: number, diagnostic: string, responseName: string | null): Buffer {
  const result = [
    ber(0x0a, Buffer.from([resultCode])),
    ber(0x04, Buffer.alloc(0)),
    ber(0x04, Buffer.from(diagnostic, 'utf8')),
    ...(responseName === null ? [] : [ber(0x8a, Buffer.from(responseName, 'latin1'))]),
  ];
  return ber(0x30, Buffer.concat([ber(0x02, Buffer.from([messageId])), ber(0x78, Buffer.concat(result))]));
}

/**
 * Upgrades the server side, presenting the credentials; TLS errors (a probe hanging up) are
 * expected. A completed session is recorded in `server.sessions` when it ends.
 */
function serveTls(socket: Socket, credentials: ServerCredentials, server: BinaryServer): void {
  const secure = new TLSSocket(socket, { isServer: true, key: credentials.key, cert: credentials.cert });
  let established = false;
  let received = Buffer.alloc(0);
  secure.on('secure', () => (established = true));
  secure.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  secure.on('end', () => server.sessions.push({ received, ended: 'close_notify' }));
  secure.on('error', () => {
    if (established) server.sessions.push({ received, ended: 'error' });
    secure.destroy();
  });
  // A client that completes the handshake and then waits (openssl s_client) is released by the client's own close.
  secure.resume();
}

async function listen(onConnection: (socket: Socket, server: BinaryServer) => void): Promise<BinaryServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  const binary: BinaryServer = {
    port: 0,
    requests: [],
    sessions: [],
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onConnection(socket, binary);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  binary.port = (server.address() as AddressInfo).port;
  return binary;
}

/**
 * Reads one complete first message, then detaches: after it the client sends TLS, which is not
 * this reader's to consume.
 */
function onFirstMessage(socket: Socket, complete: (data: Buffer) => number | null, handle: (message: Buffer) => void): void {
  let received = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const length = complete(received);
    if (length === null) {
      if (received.length > MAX_REQUEST_BYTES) socket.destroy();
      return;
    }
    socket.off('data', onData);
    socket.pause();
    handle(received.subarray(0, length));
  };
  socket.on('data', onData);
}

/** A loopback LDAP server that understands one request, StartTLS, and answers as `mode` says. */
export function startLdapServer(mode: LdapMode, credentials: ServerCredentials): Promise<BinaryServer> {
  return listen((socket, server) =>
    onFirstMessage(
      socket,
      (data) => element(data, 0)?.end ?? null,
      (message) => {
        server.requests.push(Buffer.from(message));
        let request: { messageId: number; oid: string };
        try {
          request = parseExtendedRequest(message);
        } catch {
          return socket.destroy();
        }
        const success = () => extendedResponse(request.messageId, 0, '', STARTTLS_OID);
        if (request.oid !== STARTTLS_OID) {
          socket.write(extendedResponse(request.messageId, 2, `unknown extended operation ${request.oid}`, null));
          return;
        }
        switch (mode) {
          case 'accept':
            socket.write(success());
            return serveTls(socket, credentials, server);
          case 'accept-trickle':
            return void trickle(socket, success()).then(() => serveTls(socket, credentials, server));
          case 'accept-trailing':
            socket.write(Buffer.concat([success(), Buffer.from('TRAILING')]));
            return;
          case 'refuse':
            socket.write(extendedResponse(request.messageId, 2, 'StartTLS is not supported here', null));
            return;
          case 'notice':
            socket.end(extendedResponse(0, 52, 'server shutting down', NOTICE_OF_DISCONNECTION_OID));
            return;
          case 'stall':
            return;
          case 'close':
            socket.end();
            return;
        }
      },
    ),
  );
}

async function trickle(socket: Socket, bytes: Buffer): Promise<void> {
  for (const byte of bytes) {
    if (socket.destroyed) return;
    socket.write(Buffer.from([byte]));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A loopback stand-in for PostgreSQL's front door: the SSLRequest and its one-byte answer. */
export function startPostgresFront(mode: PostgresMode, credentials: ServerCredentials): Promise<BinaryServer> {
  return listen((socket, server) =>
    onFirstMessage(
      socket,
      (data) => (data.length >= 8 ? 8 : null),
      (message) => {
        server.requests.push(Buffer.from(message));
        if (!message.equals(SSL_REQUEST)) return socket.destroy();
        switch (mode) {
          case 'accept':
            socket.write('S');
            return serveTls(socket, credentials, server);
          case 'accept-trailing':
            socket.write('SXYZ');
            return;
          case 'refuse':
            socket.write('N');
            return;
          case 'error': {
            // ErrorResponse: 'E', Int32 length, fields (S severity, M message), terminator.
            const fields = Buffer.from('SFATAL\0Munsupported frontend protocol\0\0', 'latin1');
            const header = Buffer.alloc(5);
            header.write('E', 0, 'latin1');
            header.writeInt32BE(4 + fields.length, 1);
            socket.end(Buffer.concat([header, fields]));
            return;
          }
          case 'stall':
            return;
          case 'close':
            socket.end();
            return;
        }
      },
    ),
  );
}
