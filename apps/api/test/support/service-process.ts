import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/common/net/free-port';

/** The built API's entry point. */
export const SERVICE_MAIN = join(__dirname, '../../../../dist/apps/api/src/main.js');

export interface RunningService {
  process: ChildProcess;
  output: () => string;
  baseUrl: string;
}

/** The built API as its own process (`npm test` builds it first), listening on 127.0.0.1; resolves once it listens. */
export async function startService(env: Record<string, string>): Promise<RunningService> {
  if (!existsSync(SERVICE_MAIN)) throw new Error(`${SERVICE_MAIN} is missing: \`npm test\` builds it first (npm run build).`);
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [SERVICE_MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (!output.includes('Certkeeper API listening on')) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`service did not start in time:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: child, output: () => output, baseUrl };
}

export function stopService(service: RunningService, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    // A process ended by a signal has no exit code, only its signal.
    if (service.process.exitCode !== null || service.process.signalCode !== null) return resolve(service.process.exitCode);
    service.process.once('exit', (code) => resolve(code));
    service.process.kill(signal);
  });
}

/**
 * What the API processes of one installation share when they run on an external database: its
 * URL, the secrets (so each accepts the others' tokens and reads their sealed settings) and the
 * first administrator. Each process still needs a DATA_DIR of its own.
 */
export function sharedServiceEnvironment(databaseUrl: string, admin: { email: string; password: string }): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
  };
}

/** One request to a replica's API (`path` under /api/v1) with a bearer token; the JSON body parsed, null when empty. */
export async function callReplica(
  replica: RunningService,
  token: string,
  request: { method: string; path: string; body?: string; contentType?: string },
): Promise<{ status: number; body: unknown }> {
  const { method, path, body, contentType = 'application/json' } = request;
  const response = await fetch(`${replica.baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body,
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}
