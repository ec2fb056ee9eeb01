import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import type { AppConfig } from './app-config';
import type { Environment } from './environment';

export interface Runtime {
  config: AppConfig;
  embedded: boolean;
  /** Releases what the runtime started (the embedded database). */
  stop(): Promise<void>;
}

interface GeneratedSecrets {
  jwtSecret: string;
  encryptionKey: string;
  postgresPassword: string;
}

/**
 * Secrets generated on first start and kept in DATA_DIR/secrets.json (mode 0600), so a restart
 * keeps sessions, encrypted settings and the embedded database password.
 */
async function loadOrCreateSecrets(dataDir: string): Promise<GeneratedSecrets> {
  const file = join(dataDir, 'secrets.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as GeneratedSecrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets: GeneratedSecrets = {
    jwtSecret: randomBytes(48).toString('base64url'),
    encryptionKey: randomBytes(32).toString('base64'),
    postgresPassword: randomBytes(24).toString('base64url'),
  };
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return secrets;
}

/**
 * Creates DATA_DIR and reads or creates its secrets. A directory this process may not write stops
 * the start with a sentence naming it, the user and the fix (docs/api-contract.md section 7): the
 * common case is a bind mount owned by root given to the image, which runs as uid 1000.
 */
async function prepareDataDir(dataDir: string): Promise<GeneratedSecrets> {
  try {
    await mkdir(dataDir, { recursive: true });
    // The embedded server runs as the `postgres` system user when we are root: it must be able to
    // traverse DATA_DIR to reach its own directory (secrets.json itself stays 0600).
    await chmod(dataDir, 0o755);
    return await loadOrCreateSecrets(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EACCES') throw error;
    throw new Error(`${notWritableSentence(dataDir)}: ${(error as Error).message}`, { cause: error });
  }
}

function notWritableSentence(dataDir: string): string {
  const uid = process.getuid?.() ?? null;
  if (uid === null) return `DATA_DIR ${dataDir} is not writable by this process; give it a directory it owns`;
  let name = '';
  try {
    name = ` (${userInfo().username})`;
  } catch {
    // A uid without a passwd entry (docker run --user 1234) has no name to show.
  }
  return (
    `DATA_DIR ${dataDir} is not writable by uid ${uid}${name}, the user this process runs as; ` +
    `make that user its owner (chown -R ${uid} ${dataDir}), or in a container use a named volume for it`
  );
}

/** The file in DATA_DIR that holds the first administrator's generated password (docs/api-contract.md section 2). */
export const INITIAL_ADMIN_PASSWORD_FILE = 'initial-admin-password';

/**
 * Turns the environment into a runnable configuration. Without DATABASE_URL this starts the
 * embedded PostgreSQL under DATA_DIR and fills in generated secrets.
 */
export async function prepareRuntime(env: Environment, log: (message: string) => void): Promise<Runtime> {
  const base = {
    port: env.port,
    host: env.host,
    jwtTtlSeconds: env.jwtTtlSeconds,
    publicUrl: env.publicUrl,
    admin: { email: env.adminEmail, password: env.adminPassword, passwordFile: join(env.dataDir, INITIAL_ADMIN_PASSWORD_FILE) },
    embeddedScanner: env.embeddedScanner,
    seedRootStores: true,
    retentionDays: env.retentionDays,
    rootStoreSources: env.rootStoreSources,
    outboundDeny: env.outboundDeny,
    trustProxy: env.trustProxy,
    logLevel: env.logLevel,
  };
  if (env.databaseUrl !== null) {
    // parseEnvironment guarantees both secrets when DATABASE_URL is set.
    const config = { ...base, databaseUrl: env.databaseUrl, jwtSecret: env.jwtSecret!, encryptionKey: env.encryptionKey! };
    return { config, embedded: false, stop: () => Promise.resolve() };
  }

  const secrets = await prepareDataDir(env.dataDir);
  const database = await startEmbeddedPostgres({
    directory: join(env.dataDir, 'postgres'),
    password: secrets.postgresPassword,
    databaseName: 'certkeeper',
    log,
  });
  const config: AppConfig = {
    ...base,
    databaseUrl: database.url,
    jwtSecret: env.jwtSecret ?? secrets.jwtSecret,
    encryptionKey: env.encryptionKey ?? Buffer.from(secrets.encryptionKey, 'base64'),
  };
  return { config, embedded: true, stop: () => database.stop() };
}
