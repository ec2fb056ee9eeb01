import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { createSecureContext, createServer, type SecureContext, type SecureContextOptions, type Server } from 'node:tls';
import { privateKeyPem, type MintedCertificate } from '@certkeeper/domain/testing';

/** `options` adds to the context: `{ ciphers: 'DEFAULT:@SECLEVEL=0' }` serves what OpenSSL calls too weak (SHA-1, 1024-bit keys). */
export async function secureContextOf(
  certificate: MintedCertificate,
  chain: MintedCertificate[] = [],
  options: SecureContextOptions = {},
): Promise<SecureContext> {
  return createSecureContext({
    cert: [certificate, ...chain].map((c) => c.pem).join(''),
    key: await privateKeyPem(certificate.keys.privateKey),
    ...options,
  });
}

/**
 * A TLS server on 127.0.0.1 (or another loopback address) whose certificates can be swapped while it runs (rotation), with one
 * certificate per SNI name.
 */
export class SwappableTlsServer {
  private readonly contexts = new Map<string, SecureContext>();
  private fallback: SecureContext | null = null;
  private server: Server | null = null;
  port = 0;

  async serve(
    name: string,
    certificate: MintedCertificate,
    chain: MintedCertificate[] = [],
    options: SecureContextOptions = {},
  ): Promise<void> {
    const context = await secureContextOf(certificate, chain, options);
    this.contexts.set(name, context);
    this.fallback ??= context;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<number> {
    this.server = createServer({ SNICallback: (name, done) => done(null, this.contexts.get(name) ?? this.fallback ?? undefined) });
    await new Promise<void>((resolve) => this.server!.listen(port, host, () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Accepts TCP connections and never says a word. */
export async function startTarpit(host = '127.0.0.1'): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: TcpServer = createTcpServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => sockets.length,
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
