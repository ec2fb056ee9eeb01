import { execSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { Client } from 'pg';
import { freePort } from '../../src/common/net/free-port';
import {
  BENCH_ADMIN,
  benchApiEnv,
  login,
  median,
  runAgentOnce,
  seedAgentWork,
  startApi,
  startTlsServer,
  stopApi,
  withBenchDatabase,
} from './lib';

/**
 * Issue 4's figures: the bare tls.connect handshake rate against a local TLS server, the real
 * agent's full cycle (fetch work, probe, post, ingest) over 2,000 host endpoints at concurrency
 * 64, and their ratio. The TLS server runs in its own process.
 */

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 2000);
const CONCURRENCY = 64;
const RUNS = 3;

async function bareHandshakeRate(port: number, total: number): Promise<number> {
  let next = 0;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername: `bench-${next}.example.test`, rejectUnauthorized: false }, () => {
        socket.getPeerCertificate(true);
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        await once();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  await withBenchDatabase('agent', async (database) => {
    const tlsPort = await freePort();
    const tlsServer = await startTlsServer(tlsPort);
    const api = await startApi(benchApiEnv(database.url));
    try {
      const bare = [await bareHandshakeRate(tlsPort, ENDPOINTS), await bareHandshakeRate(tlsPort, ENDPOINTS)];
      const token = await login(api.baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
      const scannerToken = await seedAgentWork(api.baseUrl, token, { hosts: ENDPOINTS, tlsPort, concurrency: CONCURRENCY });
      // Profiles are daily; this measures the every-run path, a single handshake per endpoint.
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        `INSERT INTO endpoint_tls_profiles (endpoint_id, scanned_at, versions) SELECT id, now(), '[]' FROM endpoints ON CONFLICT DO NOTHING`,
      );
      await client.end();

      const cpuSeconds = async (pid: number) => {
        const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      };
      const postgresPids = () => execSync("pgrep -f 'postgres' || true").toString().trim().split('\n').filter(Boolean).map(Number);
      const first = (await runAgentOnce(api.baseUrl, scannerToken)).wallMs;
      const pgPids = postgresPids();
      const before = {
        api: await cpuSeconds(api.pid),
        tls: await cpuSeconds(tlsServer.pid!),
        pg: (await Promise.all(pgPids.map((p) => cpuSeconds(p).catch(() => 0)))).reduce((a, b) => a + b, 0),
      };
      const steady: number[] = [];
      const agentCpu: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        const { wallMs, cpuMs } = await runAgentOnce(api.baseUrl, scannerToken);
        steady.push(wallMs);
        agentCpu.push(cpuMs);
      }
      const after = {
        api: await cpuSeconds(api.pid),
        tls: await cpuSeconds(tlsServer.pid!),
        pg: (await Promise.all(pgPids.map((p) => cpuSeconds(p).catch(() => 0)))).reduce((a, b) => a + b, 0),
      };
      process.stdout.write(
        `CPU seconds over ${RUNS} steady cycles: agent ${(agentCpu.reduce((a, b) => a + b, 0) / 1000).toFixed(1)}, api ${(after.api - before.api).toFixed(1)}, tls server ${(after.tls - before.tls).toFixed(1)}, postgres ${(after.pg - before.pg).toFixed(1)}; wall ${(steady.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s on 2 cores\n`,
      );
      const bareRate = median(bare);
      const rate = (ms: number) => ENDPOINTS / (ms / 1000);
      const steadyRate = rate(median(steady));
      process.stdout.write(`\nCertkeeper agent cycle benchmark (${ENDPOINTS} host endpoints, concurrency ${CONCURRENCY}, loopback)\n`);
      process.stdout.write(
        `  ${'bare tls.connect handshakes'.padEnd(52)} ${bareRate.toFixed(0).padStart(6)} /s   [${bare.map((r) => r.toFixed(0)).join(', ')}]\n`,
      );
      process.stdout.write(
        `  ${'agent cycle, first observation (all links new)'.padEnd(52)} ${rate(first).toFixed(0).padStart(6)} /s   (${(first / 1000).toFixed(2)} s)\n`,
      );
      process.stdout.write(
        `  ${'agent cycle, steady state (median of 3)'.padEnd(52)} ${steadyRate.toFixed(0).padStart(6)} /s   [${steady.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s]   target >= 300 /s\n`,
      );
      process.stdout.write(
        `  ${'ratio to the bare rate'.padEnd(52)} ${((steadyRate / bareRate) * 100).toFixed(0).padStart(5)} %   target >= 60 %\n`,
      );
    } finally {
      await stopApi(api);
      tlsServer.kill();
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
