import { spawn, type ChildProcess } from 'node:child_process';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import { freePort } from '../../src/common/net/free-port';
import { BENCH_ADMIN, benchApiEnv, login, median, ROOT, runAgentOnce, startApi, stopApi, withBenchDatabase } from './lib';

/**
 * The STARTTLS figure (docs/performance.md): the real agent's full cycle (fetch work, probe, post, ingest) over 500 host
 * endpoints behind SMTP STARTTLS on loopback, next to the same cycle over 500 direct-TLS
 * endpoints in the same run, and their ratio (target >= 70 %). Each server runs in its own process.
 */

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 500);
const CONCURRENCY = 64;
const RUNS = 3;

// Both servers in their own processes, so neither shares the bench's event loop. The SMTP server
// skips its reverse lookup of each client, which would measure the resolver instead.
const TLS_SERVER = `
const tls = require('node:tls');
const server = tls.createServer({ cert: process.env.CERT, key: process.env.KEY });
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));`;
const SMTP_SERVER = `
const { SMTPServer } = require('smtp-server');
const server = new SMTPServer({
  secure: false, cert: process.env.CERT, key: process.env.KEY, authOptional: true, disabledCommands: ['AUTH'],
  disableReverseLookup: true, logger: false,
  onData: (stream, _session, done) => { stream.resume(); stream.once('end', () => done()); },
});
server.on('error', () => undefined);
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));`;

async function startServer(script: string, port: number, credentials: { cert: string; key: string }): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT, // where node_modules/smtp-server resolves from
    env: { CERT: credentials.cert, KEY: credentials.key, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return child;
}

async function main(): Promise<void> {
  await withBenchDatabase('starttls', async (database) => {
    const minted = await mintCertificate({ subject: 'CN=bench.example.test', sans: ['*.example.test'] });
    const credentials = { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) };
    const [tlsPort, smtpPort] = [await freePort(), await freePort()];
    const servers = [await startServer(TLS_SERVER, tlsPort, credentials), await startServer(SMTP_SERVER, smtpPort, credentials)];
    const api = await startApi(benchApiEnv(database.url));
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    try {
      const token = await login(api.baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${api.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then((r) => r.json() as Promise<Record<string, unknown>>);
      const scanners = (await call('GET', '/api/v1/scanners')) as unknown as { id: string; isDefault: boolean }[];
      const defaultId = scanners.find((s) => s.isDefault)!.id;
      await call('PATCH', `/api/v1/scanners/${defaultId}`, { scanConcurrency: CONCURRENCY });
      const scannerToken = (await call('POST', `/api/v1/scanners/${defaultId}/regenerate-token`)).token as string;
      const rows = (kind: 'tls' | 'smtp') =>
        Array.from({ length: ENDPOINTS }, (_, i) => ({
          name: `bench-${kind}-${i}`,
          dnsName: `${kind}-${i}.example.test`,
          ipAddress: '127.0.0.1',
          port: kind === 'smtp' ? smtpPort : tlsPort,
          starttls: kind === 'smtp' ? 'smtp' : null,
          // One set at a time is scanned: the other waits disabled.
          enabled: kind === 'tls',
        }));
      await call('POST', '/api/v1/endpoints/bulk', rows('tls'));
      await call('POST', '/api/v1/endpoints/bulk', rows('smtp'));
      // Profiles are daily; this measures the every-run path, a single handshake per endpoint.
      await sql.query(
        `INSERT INTO endpoint_tls_profiles (endpoint_id, scanned_at, versions) SELECT id, now(), '[]' FROM endpoints ON CONFLICT DO NOTHING`,
      );

      const measure = async (): Promise<number[]> => {
        await runAgentOnce(api.baseUrl, scannerToken); // first observation: every link new
        const steady: number[] = [];
        for (let run = 0; run < RUNS; run += 1) steady.push((await runAgentOnce(api.baseUrl, scannerToken)).wallMs);
        const failed = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM endpoints WHERE enabled AND error_since IS NOT NULL');
        if (failed.rows[0].n > 0) throw new Error(`${failed.rows[0].n} endpoints failed their scans: the figures would mean nothing`);
        return steady;
      };
      const direct = await measure();
      await sql.query('UPDATE endpoints SET enabled = NOT enabled');
      const upgraded = await measure();

      const rate = (ms: number) => ENDPOINTS / (ms / 1000);
      const [directRate, upgradedRate] = [rate(median(direct)), rate(median(upgraded))];
      const runs = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(2)).join(', ');
      process.stdout.write(`\nCertkeeper STARTTLS benchmark (${ENDPOINTS} host endpoints each, concurrency ${CONCURRENCY}, loopback)\n`);
      process.stdout.write(
        `  ${'agent cycle, direct TLS (median of 3)'.padEnd(52)} ${directRate.toFixed(0).padStart(6)} /s   [${runs(direct)} s]\n`,
      );
      process.stdout.write(
        `  ${'agent cycle, SMTP STARTTLS (median of 3)'.padEnd(52)} ${upgradedRate.toFixed(0).padStart(6)} /s   [${runs(upgraded)} s]\n`,
      );
      process.stdout.write(
        `  ${'ratio to direct TLS'.padEnd(52)} ${((upgradedRate / directRate) * 100).toFixed(0).padStart(5)} %   target >= 70 %\n`,
      );
    } finally {
      await sql.end();
      await stopApi(api);
      for (const server of servers) server.kill();
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
