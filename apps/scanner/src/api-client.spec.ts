import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { checkApiReachable } from './api-client';

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe('checkApiReachable', () => {
  it('is reachable when health answers 200, and not when it answers 503', async () => {
    let status = 200;
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/api/v1/health' ? status : 404;
      res.end('{}');
    });
    const url = await listen(server);
    try {
      await expect(checkApiReachable(url, 2000)).resolves.toEqual({ reachable: true });
      status = 503;
      await expect(checkApiReachable(url, 2000)).resolves.toEqual({ reachable: false, reason: 'health answered 503' });
    } finally {
      server.close();
    }
  });

  it('gives up on a server that accepts the connection and says nothing', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket));
    const url = await listen(silent);
    try {
      const started = Date.now();
      await expect(checkApiReachable(url, 300)).resolves.toEqual({ reachable: false, reason: 'no answer within 300 ms' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  it('reports a refused connection', async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    await expect(checkApiReachable(url, 2000)).resolves.toEqual({ reachable: false, reason: 'ECONNREFUSED' });
  });
});
