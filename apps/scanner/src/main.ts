import type { ScanResult, WorkItem } from '@certkeeper/domain';
import { Agent } from './agent';
import { ScannerApiClient } from './api-client';
import { parseScannerEnvironment, ScannerConfigurationError } from './config';
import { jsonLog } from './log';
import { probeHost } from './probes/host-probe';
import { probeSaml } from './probes/saml-probe';
import { profileTls } from './probes/tls-profile';

function prober(deadlines: { connectTimeoutMs: number; handshakeTimeoutMs: number }) {
  return (item: WorkItem): Promise<ScanResult> => probe(item, deadlines);
}

function probe(item: WorkItem, deadlines: { connectTimeoutMs: number; handshakeTimeoutMs: number }): Promise<ScanResult> {
  switch (item.type) {
    case 'host':
      return probeHost(item, {
        ...deadlines,
        profile: async (target, deadlineMs) => (await profileTls(target, { deadlineMs })).profile,
      });
    case 'saml':
      return probeSaml(item);
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = parseScannerEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ScannerConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const agent = new Agent({
    client: new ScannerApiClient(config.apiUrl, config.token),
    probe: prober(config),
    log: jsonLog,
    newWorkPollMs: config.newWorkPollMs,
  });

  if (process.argv.includes('--once')) {
    const report = await agent.runOnce();
    // Non-zero when the API could not be reached, or could not take every result.
    process.exit(report !== null && report.pending === 0 ? 0 : 1);
  }

  const stop = (signal: string) => {
    jsonLog('info', `received ${signal}; finishing in-flight work`);
    void agent.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await agent.start();
  jsonLog('info', 'scanner agent started', { apiUrl: config.apiUrl });
}

void main();
