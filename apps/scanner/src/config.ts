import { accept, type Env, EnvironmentReader, integerFrom, parseBoolean, refuse, urlWith } from '@certkeeper/domain';
import { isIP } from 'node:net';
import { OutboundDenyList, parseOutboundDeny } from '@certkeeper/net';

export interface ScannerConfig {
  apiUrl: string;
  token: string;
  /** Deadlines of one host probe: reaching the port, then completing the handshake. */
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  /**
   * How long one long-poll for due work (new endpoints, requested scans) is held, at most 25 s;
   * due work is answered at once whatever this says (docs/decisions/0012-scan-now.md).
   */
  newWorkPollMs: number;
  /**
   * SCANNER_BACK_TO_BACK: start the next cycle as soon as one ends instead of at the cron's next
   * time, for a steady load such as the soak benchmark (apps/api/tools/bench/soak.ts).
   */
  backToBack: boolean;
  /** OUTBOUND_DENY: addresses no probe may reach (the API itself is not a probe target). */
  outboundDeny: OutboundDenyList;
  /** SCANNER_METRICS_PORT and SCANNER_METRICS_HOST: where to serve `GET /metrics`; null (the default) serves nothing. */
  metrics: { host: string; port: number } | null;
}

/** The agent's configuration errors are the shared kind, under the agent's own heading. */
export { ConfigurationError as ScannerConfigurationError } from '@certkeeper/domain';

const SCANNER_TOKEN_PREFIX = 'stx_s_';
/** The agent's DEFAULT_NEW_WORK_POLL_MS (not imported: config stays free of the agent's modules). */
const DEFAULT_NEW_WORK_POLL_MS = 25_000;
const milliseconds = integerFrom(100, 600_000, 'a whole number of milliseconds');
const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function listenAddress(raw: string) {
  return isIP(raw) !== 0 || DNS_NAME.test(raw) ? accept(raw) : refuse('must be an IP address or a host name to listen on');
}

/** Reads SCANNER_API_URL, SCANNER_TOKEN, the deadlines, OUTBOUND_DENY and the metrics listener, naming every problem at once (never a value). */
export function parseScannerEnvironment(env: Env): ScannerConfig {
  const reader = new EnvironmentReader(env);
  const apiUrl = reader.require(
    'SCANNER_API_URL',
    urlWith(['http:', 'https:'], 'the http or https base address of the Certkeeper API'),
    'required, the http or https base address of the Certkeeper API',
  );
  const token = reader.require(
    'SCANNER_TOKEN',
    (raw) =>
      raw.startsWith(SCANNER_TOKEN_PREFIX) && raw.length > SCANNER_TOKEN_PREFIX.length
        ? accept(raw)
        : refuse('must be a scanner token (stx_s_...)'),
    'required, a scanner token (stx_s_...)',
  );
  const connectTimeoutMs = reader.read('SCANNER_CONNECT_TIMEOUT_MS', milliseconds, 5000);
  const handshakeTimeoutMs = reader.read('SCANNER_HANDSHAKE_TIMEOUT_MS', milliseconds, 10_000);
  // Values above 25 s (the old default was 60 s) are accepted and held to 25 s by the agent.
  const newWorkPollMs = reader.read('SCANNER_NEW_WORK_POLL_MS', milliseconds, DEFAULT_NEW_WORK_POLL_MS);
  const backToBack = reader.read('SCANNER_BACK_TO_BACK', parseBoolean, false);
  const outboundDeny = reader.read('OUTBOUND_DENY', parseOutboundDeny, OutboundDenyList.DEFAULT);
  const metricsPort = reader.read('SCANNER_METRICS_PORT', integerFrom(1, 65_535, 'a TCP port'), null);
  // Loopback by default: the endpoint has no authentication. Read even without a port, so a typo is still reported.
  const metricsHost = reader.read('SCANNER_METRICS_HOST', listenAddress, '127.0.0.1');
  reader.finish('Invalid scanner configuration');
  return {
    apiUrl: (apiUrl as string).replace(/\/+$/, ''),
    token: token as string,
    connectTimeoutMs,
    handshakeTimeoutMs,
    newWorkPollMs,
    backToBack,
    outboundDeny,
    metrics: metricsPort === null ? null : { host: metricsHost, port: metricsPort },
  };
}
