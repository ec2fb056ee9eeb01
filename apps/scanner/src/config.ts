import { accept, type Env, EnvironmentReader, integerFrom, refuse, urlWith } from '@certkeeper/domain';
import { OutboundDenyList, parseOutboundDeny } from '@certkeeper/net';

export interface ScannerConfig {
  apiUrl: string;
  token: string;
  /** Deadlines of one host probe: reaching the port, then completing the handshake. */
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  /** How often to look for endpoints that were never scanned. */
  newWorkPollMs: number;
  /** OUTBOUND_DENY: addresses no probe may reach (the API itself is not a probe target). */
  outboundDeny: OutboundDenyList;
}

/** The agent's configuration errors are the shared kind, under the agent's own heading. */
export { ConfigurationError as ScannerConfigurationError } from '@certkeeper/domain';

const SCANNER_TOKEN_PREFIX = 'stx_s_';
const milliseconds = integerFrom(100, 600_000, 'a whole number of milliseconds');

/** Reads SCANNER_API_URL, SCANNER_TOKEN, the deadlines and OUTBOUND_DENY, naming every problem at once (never a value). */
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
  const newWorkPollMs = reader.read('SCANNER_NEW_WORK_POLL_MS', milliseconds, 60_000);
  const outboundDeny = reader.read('OUTBOUND_DENY', parseOutboundDeny, OutboundDenyList.DEFAULT);
  reader.finish('Invalid scanner configuration');
  return {
    apiUrl: (apiUrl as string).replace(/\/+$/, ''),
    token: token as string,
    connectTimeoutMs,
    handshakeTimeoutMs,
    newWorkPollMs,
    outboundDeny,
  };
}
