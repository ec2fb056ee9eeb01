import type { ScanResult, WorkItem } from '@certkeeper/domain/protocol';
import { OutboundGuard } from '@certkeeper/net';
import { limitHeapGrowth } from '@certkeeper/net/heap-growth';
import { Agent } from './agent';
import { ScannerApiClient } from './api-client';
import { parseScannerEnvironment, type ScannerConfig, ScannerConfigurationError } from './config';
import { SweepRunner, sweepProbeDeadlines } from './discovery/sweep-runner';
import { jsonLog } from './log';
import type { AgentMetrics, MetricsServer } from './metrics';
import { probeHost } from './probes/host-probe';
import { probeSaml } from './probes/saml-probe';
import { profileTls } from './probes/tls-profile';

// prom-client costs more start-up CPU than all of the agent's own modules together, and every
// `--once` run (a cron job, the agent benchmark) pays its start-up: loaded only when metrics are
// served. TypeScript resolves `import()` by Node's ESM rules, hence the `.js`; SWC compiles it to
// a `require` of the built file.
const loadMetrics = () => import('./metrics.js');

interface ProbeSettings {
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  /** One guard for every probe: OUTBOUND_DENY applies to hosts, TLS profiles, SAML fetches and sweeps alike. */
  guard: OutboundGuard;
}

function prober(config: ScannerConfig, guard: OutboundGuard) {
  const settings: ProbeSettings = { connectTimeoutMs: config.connectTimeoutMs, handshakeTimeoutMs: config.handshakeTimeoutMs, guard };
  return (item: WorkItem): Promise<ScanResult> => probe(item, settings);
}

function probe(item: WorkItem, settings: ProbeSettings): Promise<ScanResult> {
  switch (item.type) {
    case 'host':
      return probeHost(item, {
        ...settings,
        profile: async (target, deadlineMs) => (await profileTls(target, { deadlineMs, guard: settings.guard })).profile,
      });
    case 'saml':
      return probeSaml(item, { guard: settings.guard });
  }
}

async function main(): Promise<void> {
  limitHeapGrowth();
  let config;
  try {
    config = parseScannerEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ScannerConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const client = new ScannerApiClient(config.apiUrl, config.token);
  const guard = new OutboundGuard(config.outboundDeny);
  // Read at scrape time only, once the agent exists.
  const metrics: AgentMetrics | null = config.metrics ? new (await loadMetrics()).AgentMetrics((): number => agent.pendingResults) : null;
  const probeEndpoint = prober(config, guard);
  const agent = new Agent({
    client,
    probe: metrics ? metrics.instrument(probeEndpoint) : probeEndpoint,
    // Reverse DNS: the default lookup, with its own deadline.
    sweeps: new SweepRunner({ client, log: jsonLog, probeOptions: { guard, ...sweepProbeDeadlines(config) } }),
    log: jsonLog,
    newWorkPollMs: config.newWorkPollMs,
    backToBack: config.backToBack,
  });

  if (process.argv.includes('--once')) {
    // A sweep may run for hours: a signal (a cron job's time limit) stops it as it stops the
    // daemon's, after the probes in flight and with a final report, and the run exits as usual.
    const stopOnce = (signal: string) => {
      jsonLog('info', `received ${signal}; finishing in-flight work`);
      void agent.stop();
    };
    process.once('SIGTERM', () => stopOnce('SIGTERM'));
    process.once('SIGINT', () => stopOnce('SIGINT'));
    const { cycle, sweepsUndelivered } = await agent.runOnceThenSweeps();
    // Non-zero when the API could not be reached, or could not take every result or sweep report.
    process.exit(cycle !== null && cycle.pending === 0 && sweepsUndelivered === 0 ? 0 : 1);
  }

  let metricsServer: MetricsServer | null = null;
  if (metrics && config.metrics) {
    try {
      metricsServer = await (await loadMetrics()).serveMetrics(metrics.registry, config.metrics.host, config.metrics.port);
    } catch (error) {
      process.stderr.write(
        `cannot serve metrics on ${config.metrics.host}:${config.metrics.port}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(2);
    }
    jsonLog('info', 'serving metrics', { host: config.metrics.host, port: metricsServer.address.port });
  }

  const stop = (signal: string) => {
    jsonLog('info', `received ${signal}; finishing in-flight work`);
    void agent
      .stop()
      .then(() => metricsServer?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await agent.start();
  jsonLog('info', 'scanner agent started', { apiUrl: config.apiUrl, outboundDeny: config.outboundDeny.toString() });
}

void main();
