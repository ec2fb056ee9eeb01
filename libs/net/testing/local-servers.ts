/**
 * Servers on 127.0.0.1 for the TLS profile's tests and benchmark: Node's TLS server, OpenSSL's
 * s_server (for versions and suites Node will not negotiate) and a tarpit. Never used by the agent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer as createTcpServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import { parseClientHello, type ParsedClientHello } from '@certkeeper/domain/testing';

export interface LocalServer {
  port: number;
  close(): Promise<void>;
}

export interface Credentials {
  certPem: string;
  keyPem: string;
}

export { privateKeyPem } from '@certkeeper/domain/testing';

export function startNodeTlsServer(options: TlsOptions): Promise<LocalServer> {
  // Probes drop the connection mid-handshake; the server's error for that is expected noise.
  const server = createTlsServer(options, (socket) => socket.destroy());
  server.on('tlsClientError', () => undefined);
  return listenOnLoopback(server);
}

/** Accepts TCP connections and never writes a byte: the host that must not stall a probe. */
export function startTarpit(): Promise<LocalServer> {
  return listenOnLoopback(createTcpServer(() => undefined));
}

/** What a scripted server does with a ClientHello: write these bytes and close, close at once, or stay silent. */
export type ScriptedAnswer = Buffer | 'close' | 'silent';

/**
 * A TCP server that reads each ClientHello and answers as `answer` says: for behaviour real
 * servers will not show on demand (intolerance, silence, HelloRetryRequests for odd groups).
 */
export function startScriptedServer(answer: (hello: ParsedClientHello, connection: number) => ScriptedAnswer): Promise<LocalServer> {
  let connections = 0;
  return listenOnLoopback(
    createTcpServer((socket) => {
      const connection = ++connections;
      let received = Buffer.alloc(0);
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const hello = parseClientHello(received);
        if (hello === null) return;
        const reply = answer(hello, connection);
        if (reply === 'close') socket.destroy();
        else if (reply !== 'silent') socket.end(reply);
      });
    }),
  );
}

/** A port nothing listens on right now (the kernel's pick, released at once). */
export async function unusedPort(): Promise<number> {
  const server = await listenOnLoopback(createTcpServer());
  await server.close();
  return server.port;
}

function listenOnLoopback(server: Server): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const close = () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        });
      resolve({ port, close });
    });
  });
}

/**
 * `openssl s_server` with the given credentials and extra arguments (protocol range, cipher
 * string), on a free loopback port; resolves once it accepts connections. The configuration file
 * is ignored so that no distribution policy (MinProtocol, SECLEVEL) changes what it serves.
 */
export async function startOpensslServer(credentials: Credentials, args: string[]): Promise<LocalServer> {
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-s_server-'));
  await writeFile(join(directory, 'cert.pem'), credentials.certPem);
  await writeFile(join(directory, 'key.pem'), credentials.keyPem);
  const port = await unusedPort();
  const child = spawn(
    'openssl',
    [
      's_server',
      '-accept',
      `127.0.0.1:${port}`,
      '-cert',
      join(directory, 'cert.pem'),
      '-key',
      join(directory, 'key.pem'),
      '-www',
      '-quiet',
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENSSL_CONF: '/dev/null' } },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const close = async () => {
    await stopProcess(child);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await waitForListener(port, child, () => stderr);
  } catch (error) {
    await close();
    throw error;
  }
  return { port, close };
}

async function waitForListener(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const started = Date.now();
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`openssl s_server exited: ${stderr()}`);
    if (Date.now() - started > 10_000) throw new Error(`openssl s_server not listening after 10 s: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
