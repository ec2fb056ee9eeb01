import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScanResult, WorkItem } from '@certkeeper/domain/protocol';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a probe came to: a result with success true or false, or an exception (a bug: probes report network failures as results). */
export type ProbeOutcome = 'success' | 'failure' | 'error';
const PROBE_OUTCOMES: ProbeOutcome[] = ['success', 'failure', 'error'];
const PROBE_TYPES: WorkItem['type'][] = ['host', 'saml'];

/**
 * The agent's own Prometheus metrics (docs/api-contract.md section 12), in a registry of its own:
 * scan probes by endpoint type and outcome, their duration, the results buffered for the API, and
 * the Node process defaults. Discovery sweeps are not scan probes and are not counted here.
 */
export class AgentMetrics {
  readonly registry = new Registry();

  private readonly probes = new Counter({
    name: 'certkeeper_agent_probes_total',
    help: 'Scan probes finished, by endpoint type and outcome (success, failure: the scan failed, error: the probe threw).',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly probeDuration = new Histogram({
    name: 'certkeeper_agent_probe_duration_seconds',
    help: 'Time one scan probe took, TLS profile or metadata fetch included, by endpoint type.',
    labelNames: ['type'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers: [this.registry],
  });

  /** `bufferedResults` is read at each scrape: the results waiting to be posted to the API. */
  constructor(bufferedResults: () => number) {
    new Gauge({
      name: 'certkeeper_agent_buffered_results',
      help: 'Scan results waiting to be posted to the API (kept while the API is unreachable).',
      registers: [this.registry],
      collect() {
        this.set(bufferedResults());
      },
    });
    // Every series from the start, so rate() sees the first failure as an increase from 0.
    for (const type of PROBE_TYPES) for (const outcome of PROBE_OUTCOMES) this.probes.inc({ type, outcome }, 0);
    collectDefaultMetrics({ register: this.registry });
  }

  /** The same probe, counted and timed. */
  instrument(probe: (item: WorkItem) => Promise<ScanResult>): (item: WorkItem) => Promise<ScanResult> {
    return async (item) => {
      const stopTimer = this.probeDuration.startTimer({ type: item.type });
      let outcome: ProbeOutcome = 'error';
      try {
        const result = await probe(item);
        outcome = result.success ? 'success' : 'failure';
        return result;
      } finally {
        stopTimer();
        this.probes.inc({ type: item.type, outcome });
      }
    };
  }
}

export interface MetricsServer {
  /** Where it listens (the bound port when 0 was asked for). */
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * A plain HTTP server answering `GET /metrics` (and HEAD) with the registry, without
 * authentication: bind it to loopback or a monitoring network (SCANNER_METRICS_HOST).
 */
export async function serveMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed.\n');
      return;
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's keep-alive connection would otherwise hold the close until it times out.
        server.closeAllConnections();
      }),
  };
}
