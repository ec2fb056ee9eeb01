export interface ScannerConfig {
  apiUrl: string;
  token: string;
  /** Deadlines of one host probe: reaching the port, then completing the handshake. */
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  /** How often to look for endpoints that were never scanned. */
  newWorkPollMs: number;
}

export class ScannerConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid scanner configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ScannerConfigurationError';
  }
}

/** Reads SCANNER_API_URL and SCANNER_TOKEN, naming every problem at once. */
export function parseScannerEnvironment(env: Record<string, string | undefined>): ScannerConfig {
  const problems: string[] = [];
  const apiUrl = env.SCANNER_API_URL?.trim() ?? '';
  const token = env.SCANNER_TOKEN?.trim() ?? '';
  let url: URL | null = null;
  try {
    url = new URL(apiUrl);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    problems.push('SCANNER_API_URL: required, the http or https base address of the Certkeeper API');
  }
  if (!token.startsWith('stx_s_') || token.length <= 'stx_s_'.length) {
    problems.push('SCANNER_TOKEN: required, a scanner token (stx_s_...)');
  }
  const milliseconds = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 100 || value > 600_000) {
      problems.push(`${name}: must be a whole number of milliseconds from 100 to 600000`);
      return fallback;
    }
    return value;
  };
  const connectTimeoutMs = milliseconds('SCANNER_CONNECT_TIMEOUT_MS', 5000);
  const handshakeTimeoutMs = milliseconds('SCANNER_HANDSHAKE_TIMEOUT_MS', 10_000);
  const newWorkPollMs = milliseconds('SCANNER_NEW_WORK_POLL_MS', 60_000);
  if (problems.length > 0) throw new ScannerConfigurationError(problems);
  return { apiUrl: apiUrl.replace(/\/+$/, ''), token, connectTimeoutMs, handshakeTimeoutMs, newWorkPollMs };
}
