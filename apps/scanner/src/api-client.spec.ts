import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiError, ScannerApiClient } from './api-client';

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const config = { id: 's', name: 'dmz', isDefault: false, scanCronExpression: '0 * * * *', scanConcurrency: 5, discoveryNetworks: [] };

describe('ScannerApiClient', () => {
  it('reads the configuration with the bearer token, and reports a 5xx as transient and a 401 as fatal', async () => {
    let status = 200;
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.statusCode = req.url === '/api/v1/scanner/config' ? status : 404;
      res.end(JSON.stringify(config));
    });
    const url = await listen(server);
    const client = new ScannerApiClient(url, 'stx_s_token', 2000);
    try {
      await expect(client.getConfig()).resolves.toEqual(config);
      expect(seen).toEqual(['Bearer stx_s_token']);
      status = 503;
      await expect(client.getConfig()).rejects.toMatchObject({ status: 503, transient: true });
      status = 401;
      await expect(client.getConfig()).rejects.toMatchObject({ status: 401, transient: false });
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
      const failure = new ScannerApiClient(url, 'stx_s_token', 300).getWork();
      await expect(failure).rejects.toBeInstanceOf(ApiError);
      await expect(failure).rejects.toThrow('API unreachable: no answer within 300 ms');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  it('reports a refused connection as transient', async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    await expect(new ScannerApiClient(url, 'stx_s_token', 2000).getConfig()).rejects.toMatchObject({
      message: 'API unreachable: ECONNREFUSED',
      transient: true,
      status: null,
    });
  });
});
