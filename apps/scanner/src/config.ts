export interface ScannerConfig {
  apiUrl: string;
  token: string;
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
  if (problems.length > 0) throw new ScannerConfigurationError(problems);
  return { apiUrl: apiUrl.replace(/\/+$/, ''), token };
}
