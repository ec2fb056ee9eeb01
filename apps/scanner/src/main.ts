import { checkApiReachable } from './api-client';
import { parseScannerEnvironment, ScannerConfigurationError } from './config';

const REACHABILITY_DEADLINE_MS = 10_000;
const DAEMON_INTERVAL_MS = 60_000;

function log(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, context: 'Scanner', msg, ...fields })}\n`);
}

/**
 * The agent's skeleton: configuration and the API connection. Probing hosts and SAML metadata
 * arrives with the scanner protocol; until then a cycle only checks that the API answers.
 */
async function runCycle(apiUrl: string): Promise<boolean> {
  const result = await checkApiReachable(apiUrl, REACHABILITY_DEADLINE_MS);
  if (result.reachable) log('info', 'API reachable', { apiUrl });
  else log('error', `API unreachable: ${result.reason}`, { apiUrl });
  return result.reachable;
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

  if (process.argv.includes('--once')) {
    process.exit((await runCycle(config.apiUrl)) ? 0 : 1);
  }

  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopping = true;
    clearTimeout(timer);
    log('info', 'stopping');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const loop = async () => {
    await runCycle(config.apiUrl);
    if (!stopping) timer = setTimeout(() => void loop(), DAEMON_INTERVAL_MS);
  };
  await loop();
}

void main();
