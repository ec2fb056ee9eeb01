import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';

/**
 * The servers one spec starts, tracked so that each test can end with every server closed and
 * every connection cut (a kept-alive socket would otherwise hold `close` open).
 */
export class LoopbackServers {
  private readonly servers: (Server | TcpServer)[] = [];
  private readonly sockets = new Set<Socket>();

  /** Listens on 127.0.0.1 (or `host`) on a free port and returns the base URL. */
  listen(server: Server | TcpServer, scheme = 'http', host = '127.0.0.1'): Promise<string> {
    this.servers.push(server);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return new Promise((resolve) => server.listen(0, host, () => resolve(`${scheme}://${host}:${(server.address() as AddressInfo).port}`)));
  }

  /** An HTTP server answering with `handler`. */
  serve(handler: RequestListener): Promise<string> {
    return this.listen(createServer(handler));
  }

  /** Closes the server started last: its port then refuses connections. */
  async closeLast(): Promise<void> {
    await new Promise((resolve) => this.servers.pop()?.close(resolve));
  }

  async closeAll(): Promise<void> {
    this.sockets.forEach((socket) => socket.destroy());
    await Promise.all(this.servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
