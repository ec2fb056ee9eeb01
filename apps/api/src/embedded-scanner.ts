import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Logger } from '@nestjs/common';

const RESTART_DELAY_MS = 5000;
const STOP_GRACE_MS = 15_000;

/**
 * The operator's settings the agent reads: SCANNER_* and OUTBOUND_DENY, so one deny list covers
 * the API and its embedded agent alike (the API already refused a bad value at start-up).
 */
const forTheAgent = (name: string) => name.startsWith('SCANNER_') || name === 'OUTBOUND_DENY';

function scannerSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => forTheAgent(entry[0]) && entry[1] !== undefined),
  );
}

/** Where the built agent sits next to the built API (dist/apps/api/src -> dist/apps/scanner/src). */
export const EMBEDDED_AGENT_MAIN = join(__dirname, '../../scanner/src/main.js');

/**
 * Runs the real scanner agent as a child process acting as the default scanner, so a fresh
 * install observes hosts without deploying anything else (docs/api-contract.md section 7, EMBEDDED_SCANNER).
 * Its JSON log lines pass through; a crash restarts it after a pause.
 */
export class EmbeddedScanner {
  private readonly logger = new Logger('EmbeddedScanner');
  private child: ChildProcess | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly logLevel: string,
  ) {}

  start(): void {
    if (!existsSync(EMBEDDED_AGENT_MAIN)) {
      this.logger.warn(
        `The scanner agent is not built (${EMBEDDED_AGENT_MAIN}); run "npm run build". Continuing without the embedded scanner.`,
      );
      return;
    }
    const child = spawn(process.execPath, ['--enable-source-maps', EMBEDDED_AGENT_MAIN], {
      // The operator's SCANNER_* settings (deadlines, polling) and OUTBOUND_DENY apply to the embedded agent too.
      env: {
        PATH: process.env.PATH ?? '',
        ...scannerSettings(),
        SCANNER_API_URL: this.apiUrl,
        SCANNER_TOKEN: this.token,
        LOG_LEVEL: this.logLevel,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${line}\n`));
    }
    child.once('exit', (code, signal) => {
      this.child = null;
      if (this.stopping) return;
      this.logger.warn(`The embedded scanner exited (${signal ?? code}); restarting in ${RESTART_DELAY_MS / 1000} s.`);
      this.restartTimer = setTimeout(() => this.start(), RESTART_DELAY_MS);
    });
    this.logger.log('Started the embedded scanner agent as the default scanner.');
  }

  /** Lets the agent finish its in-flight probes, then makes sure it is gone. */
  stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
