import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { SweepReport, SweepWorkItem } from '@certkeeper/domain/protocol';
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

  it('long-polls with the wait in the query, waits that long beyond its deadline, and is abandoned by its signal', async () => {
    const urls: string[] = [];
    // Answers after 500 ms: past the client's own 300 ms deadline, within the wait added to it.
    const server = createServer((req, res) => {
      urls.push(req.url ?? '');
      setTimeout(() => res.end(JSON.stringify({ items: [], sweeps: [] })), 500);
    });
    const url = await listen(server);
    const client = new ScannerApiClient(url, 'stx_s_token', 300);
    try {
      await expect(client.getWork({ neverScanned: true, waitSeconds: 1 })).resolves.toEqual({ items: [], sweeps: [] });
      await expect(client.getWork({ neverScanned: true, waitSeconds: 0.2 })).rejects.toThrow('no answer within 500 ms');
      const stopping = new AbortController();
      const abandoned = client.getWork({ neverScanned: true, waitSeconds: 25, signal: stopping.signal });
      setTimeout(() => stopping.abort(), 50);
      await expect(abandoned).rejects.toBeInstanceOf(ApiError);
      // The wait is held to the protocol's 30 s at most, and asked for only with neverScanned.
      await client.getWork({ neverScanned: true, waitSeconds: 99 });
      await client.getWork({ waitSeconds: 5 }).catch(() => undefined);
      expect(urls).toEqual([
        '/api/v1/scanner/work?neverScanned=true&wait=1',
        '/api/v1/scanner/work?neverScanned=true&wait=0.2',
        '/api/v1/scanner/work?neverScanned=true&wait=25',
        '/api/v1/scanner/work?neverScanned=true&wait=30',
        '/api/v1/scanner/work',
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
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

  describe('discovery sweeps', () => {
    const sweep: SweepWorkItem = { sweepId: 'sw-1', networkId: 'net-1', ranges: ['192.0.2.0/30'], ports: [443, 8443] };
    const requests: { method?: string; url?: string; authorization?: string; contentType?: string; body: string }[] = [];
    let answer: (url: string) => { status: number; body: unknown } = () => ({ status: 404, body: '' });
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        requests.push({
          method: req.method,
          url: req.url,
          authorization: req.headers.authorization,
          contentType: req.headers['content-type'],
          body,
        });
        const { status, body: reply } = answer(req.url ?? '');
        res.statusCode = status;
        res.end(typeof reply === 'string' ? reply : JSON.stringify(reply));
      });
    });
    let client: ScannerApiClient;

    beforeAll(async () => {
      client = new ScannerApiClient(await listen(server), 'stx_s_token', 2000);
    });
    beforeEach(() => void requests.splice(0));
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('reads the queued sweeps with the work, and none from an API that predates discovery', async () => {
      answer = () => ({ status: 200, body: { items: [], sweeps: [sweep] } });
      await expect(client.getWork({ neverScanned: true })).resolves.toEqual({ items: [], sweeps: [sweep] });
      answer = () => ({ status: 200, body: { items: [] } });
      await expect(client.getWork()).resolves.toEqual({ items: [], sweeps: [] });
      expect(requests.map((request) => request.url)).toEqual(['/api/v1/scanner/work?neverScanned=true', '/api/v1/scanner/work']);
    });

    it('claims a sweep, and reads 409, 403 and 404 as "not ours to run"', async () => {
      let status = 200;
      answer = () => ({ status, body: status === 200 ? sweep : 'Conflict' });
      await expect(client.startSweep('sw-1')).resolves.toEqual(sweep);
      expect(requests[0]).toMatchObject({
        method: 'POST',
        url: '/api/v1/scanner/sweeps/sw-1/start',
        authorization: 'Bearer stx_s_token',
        body: '',
      });
      for (status of [409, 403, 404]) await expect(client.startSweep('sw-1')).resolves.toBeNull();
      status = 503;
      await expect(client.startSweep('sw-1')).rejects.toMatchObject({ status: 503, transient: true });
      status = 401;
      await expect(client.startSweep('sw-1')).rejects.toMatchObject({ status: 401, transient: false });
    });

    it('posts sweep reports as JSON and returns one outcome per report', async () => {
      const report: SweepReport = {
        reportId: 'r-1',
        sweepId: 'sw-1',
        addressesProbed: 4,
        findings: [
          {
            address: '192.0.2.1',
            port: 443,
            reverseName: null,
            chain: ['PEM'],
            tlsVersion: 'TLSv1.3',
            cipherSuite: 'TLS_AES_128_GCM_SHA256',
          },
        ],
        final: true,
        error: null,
      };
      const outcomes = [{ reportId: 'r-1', sweepId: 'sw-1', status: 'accepted' }];
      answer = () => ({ status: 200, body: { reports: outcomes } });
      await expect(client.postSweepReports([report])).resolves.toEqual(outcomes);
      expect(requests[0]).toMatchObject({ method: 'POST', url: '/api/v1/scanner/sweep-reports', contentType: 'application/json' });
      expect(JSON.parse(requests[0].body)).toEqual({ reports: [report] });
      answer = () => ({ status: 500, body: 'boom' });
      await expect(client.postSweepReports([report])).rejects.toMatchObject({ status: 500, transient: true });
    });
  });
});
