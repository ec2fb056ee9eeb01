import type { ScanResult, WorkItem } from '@certkeeper/domain/protocol';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { AgentMetrics, serveMetrics } from './metrics';

const hostItem = { type: 'host', endpointId: 'e1' } as unknown as WorkItem;
const samlItem = { type: 'saml', endpointId: 'e2' } as unknown as WorkItem;
const result = (success: boolean) => ({ success }) as unknown as ScanResult;

async function families(metrics: AgentMetrics) {
  return new Map(parsePrometheusTextFormat(await metrics.registry.metrics()).map((family) => [family.name, family]));
}

describe('AgentMetrics', () => {
  it('counts probes by type and outcome, from zero, and times them', async () => {
    const metrics = new AgentMetrics(() => 0);
    const probe = metrics.instrument((item) =>
      item.endpointId === 'boom' ? Promise.reject(new Error('bug')) : Promise.resolve(result(item.type === 'host')),
    );
    await probe(hostItem);
    await probe(hostItem);
    await probe(samlItem);
    await expect(probe({ ...hostItem, endpointId: 'boom' })).rejects.toThrow('bug');

    const parsed = await families(metrics);
    const probes = parsed.get('certkeeper_agent_probes_total')!;
    expect(probes.type).toBe('COUNTER');
    const count = (type: string, outcome: string) =>
      probes.metrics.find((m) => m.labels?.type === type && m.labels.outcome === outcome)?.value;
    expect([count('host', 'success'), count('host', 'failure'), count('host', 'error')]).toEqual(['2', '0', '1']);
    expect([count('saml', 'success'), count('saml', 'failure'), count('saml', 'error')]).toEqual(['0', '1', '0']);

    const text = await metrics.registry.metrics();
    expect(parsed.get('certkeeper_agent_probe_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(text).toMatch(/^certkeeper_agent_probe_duration_seconds_count\{type="host"\} 3$/m);
    expect(text).toMatch(/^certkeeper_agent_probe_duration_seconds_count\{type="saml"\} 1$/m);
  });

  it('reads the buffered results at each scrape', async () => {
    let buffered = 3;
    const metrics = new AgentMetrics(() => buffered);
    expect((await families(metrics)).get('certkeeper_agent_buffered_results')?.metrics).toEqual([{ value: '3' }]);
    buffered = 0;
    expect((await families(metrics)).get('certkeeper_agent_buffered_results')?.metrics).toEqual([{ value: '0' }]);
  });

  it('keeps two instances apart and includes the process defaults', async () => {
    const first = new AgentMetrics(() => 1);
    const second = new AgentMetrics(() => 2);
    await first.instrument(() => Promise.resolve(result(true)))(hostItem);
    const parsed = await families(second);
    expect(parsed.get('certkeeper_agent_probes_total')?.metrics.every((m) => m.value === '0')).toBe(true);
    expect(parsed.has('process_cpu_user_seconds_total')).toBe(true);
    expect(parsed.has('nodejs_heap_size_used_bytes')).toBe(true);
  });
});

describe('serveMetrics', () => {
  it('answers GET /metrics with the text format, 404 elsewhere, 405 for other methods, and closes with a client connected', async () => {
    const metrics = new AgentMetrics(() => 7);
    const server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
    const base = `http://127.0.0.1:${server.address.port}`;
    try {
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const parsed = parsePrometheusTextFormat(await response.text());
      expect(parsed.find((f) => f.name === 'certkeeper_agent_buffered_results')?.metrics).toEqual([{ value: '7' }]);
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST', body: 'x' })).status).toBe(405);
    } finally {
      await server.close();
    }
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });

  it('fails to start when the port is taken', async () => {
    const metrics = new AgentMetrics(() => 0);
    const first = await serveMetrics(metrics.registry, '127.0.0.1', 0);
    try {
      await expect(serveMetrics(metrics.registry, '127.0.0.1', first.address.port)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
