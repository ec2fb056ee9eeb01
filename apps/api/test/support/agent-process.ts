import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The built agent's entry point (`npm test` builds it first). */
export const AGENT = join(__dirname, '../../../../dist/apps/scanner/src/main.js');

/** OUTBOUND_DENY of the test run, for the agents a spec starts, as the API's reaches its embedded agent. */
export const RUN_OUTBOUND_DENY: Record<string, string> =
  process.env.OUTBOUND_DENY === undefined ? {} : { OUTBOUND_DENY: process.env.OUTBOUND_DENY };

export interface AgentRun {
  code: number | null;
  output: string;
}

/**
 * The real agent, built, as its own process: one cycle (`--once`) against this API, with `env`
 * added to what it needs to reach it. Resolves with its exit code and everything it printed.
 */
export function runAgentCycle(apiUrl: string, token: string, env: Record<string, string> = {}): Promise<AgentRun> {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: \`npm test\` builds it first (npm run build).`);
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, [AGENT, '--once'], {
      env: { PATH: process.env.PATH ?? '', SCANNER_API_URL: apiUrl, SCANNER_TOKEN: token, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}
