import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callService, type RunningService, sharedServiceEnvironment, signInToService, startService, stopService } from './service-process';
import { createTestDatabase } from './test-app';
import { databaseUrl, withAdminClient } from './test-database';

export interface ReplicaPair {
  /** The two API processes; read them once the spec's hooks have run. */
  readonly a: RunningService;
  readonly b: RunningService;
  /** The shared database, for a spec that sets up rows no route writes (a backdated renewal). */
  readonly databaseUrl: string;
  /** A request to `replica` as the administrator: its status, and its body parsed when JSON (its text otherwise). */
  call(
    replica: RunningService,
    method: string,
    path: string,
    body?: string,
    contentType?: string,
  ): Promise<{ status: number; body: unknown }>;
}

/**
 * Two API processes sharing one fresh database, as two replicas behind a load balancer, started
 * before the spec's tests and stopped (the database dropped) after them; `admin` signs in once.
 */
export function replicaPair(name: string, admin: { email: string; password: string }): ReplicaPair {
  let directory: string;
  let databaseName: string;
  let token: string;
  const pair = {} as { a: RunningService; b: RunningService };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), `certkeeper-${name}-`));
    await chmod(directory, 0o755);
    databaseName = await createTestDatabase();
    const env = sharedServiceEnvironment(databaseUrl(databaseName), admin);
    [pair.a, pair.b] = await Promise.all(['a', 'b'].map((replica) => startService({ ...env, DATA_DIR: join(directory, replica) })));
    token = await signInToService(pair.a, admin);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([pair.a, pair.b].filter(Boolean).map((replica) => stopService(replica)));
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  }, 60_000);

  return {
    get a() {
      return pair.a;
    },
    get b() {
      return pair.b;
    },
    get databaseUrl() {
      return databaseUrl(databaseName);
    },
    call: (replica, method, path, body, contentType) =>
      callService(replica, token, { method, path, body, contentType, timeoutMs: 120_000 }),
  };
}
