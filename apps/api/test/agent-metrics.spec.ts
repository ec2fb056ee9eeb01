import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { mintCertificate } from '@certkeeper/domain/testing';
import { freePort } from '../src/common/net/free-port';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { SwappableTlsServer } from './support/tls-servers';
import { AGENT, RUN_OUTBOUND_DENY } from './support/agent-process';

/** The built agent as a daemon serving its metrics (docs/api-contract.md section 12, SCANNER_METRICS_PORT). */
describe('the real agent serving /metrics', () => {
  let t: TestApp;
  const tls = new SwappableTlsServer();

  beforeAll(async () => {
    t = await createTestApp();
    await tls.serve('metrics.example.test', await mintCertificate({ subject: 'CN=metrics.example.test', sans: ['metrics.example.test'] }));
    await tls.listen();
  });
  afterAll(async () => {
    await tls.close();
    await t.close();
  });

  it('counts its probes by outcome, reports its buffer and process, and stops serving on SIGTERM', async () => {
    if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: build it first (node tools/build.js all).`);
    const admin = await login(t);
    const token = (await defaultScannerCredentials(t, admin)).token;
    const endpoint = (body: Record<string, unknown>) => t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201);
    await endpoint({ name: 'up', dnsName: 'metrics.example.test', ipAddress: '127.0.0.1', port: tls.port });
    await endpoint({ name: 'down', dnsName: 'down.example.test', ipAddress: '127.0.0.1', port: await freePort() });

    const metricsPort = await freePort();
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH ?? '',
        SCANNER_API_URL: t.baseUrl,
        SCANNER_TOKEN: token,
        SCANNER_CONNECT_TIMEOUT_MS: '1000',
        SCANNER_HANDSHAKE_TIMEOUT_MS: '1000',
        SCANNER_METRICS_PORT: String(metricsPort),
        ...RUN_OUTBOUND_DENY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => agent.once('exit', resolve));
    try {
      // The start-up poll probes the never-scanned endpoints: wait until both probes are counted.
      const probes = (text: string, outcome: string) =>
        Number(
          parsePrometheusTextFormat(text)
            .find((family) => family.name === 'certkeeper_agent_probes_total')
            ?.metrics.find((m) => m.labels?.type === 'host' && m.labels.outcome === outcome)?.value ?? NaN,
        );
      let text = '';
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const response = await fetch(metricsUrl).catch(() => null);
        if (response?.status === 200) {
          expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
          text = await response.text();
          if (probes(text, 'success') + probes(text, 'failure') >= 2) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect({ success: probes(text, 'success'), failure: probes(text, 'failure'), error: probes(text, 'error'), output: '' }).toEqual({
        success: 1,
        failure: 1,
        error: 0,
        output: probes(text, 'success') === 1 ? '' : output,
      });
      expect(text).toMatch(/^certkeeper_agent_probe_duration_seconds_count\{type="host"\} 2$/m);
      expect(text).toMatch(/^certkeeper_agent_buffered_results \d+$/m);
      expect(text).toMatch(/^process_cpu_user_seconds_total /m);

      agent.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(fetch(metricsUrl)).rejects.toThrow();
    } finally {
      // A failed expectation must not leave the agent running (Jest would never exit).
      if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
      await exited;
    }
  }, 40_000);
});
