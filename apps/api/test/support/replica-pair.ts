import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DAY } from './fake-clock';
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
  /** Manual endpoints (tagged `tags`), made through b, with certificates 10 days from expiry: one 14-day alert each. */
  expiringCertificates(prefix: string, count: number, tags?: string[]): Promise<MintedCertificate[]>;
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

  const call: ReplicaPair['call'] = (replica, method, path, body, contentType) =>
    callService(replica, token, { method, path, body, contentType, timeoutMs: 120_000 });

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
    call,
    expiringCertificates: async (prefix, count, tags = []) => {
      const minted: MintedCertificate[] = [];
      for (let n = 0; n < count; n += 1) {
        const notAfter = new Date(Math.floor((Date.now() + 10 * DAY) / 1000) * 1000);
        const certificate = await mintCertificate({
          subject: `CN=${prefix}-${n}.example.com`,
          notBefore: new Date(notAfter.getTime() - 90 * DAY),
          notAfter,
        });
        const created = await call(pair.b, 'POST', '/endpoints', JSON.stringify({ name: `${prefix}-${n}`, type: 'manual', tags }));
        const id = (created.body as { id: string }).id;
        const attached = await call(pair.b, 'POST', `/endpoints/${id}/certificate`, certificate.pem, 'application/x-pem-file');
        if (attached.status !== 201) throw new Error(`Attaching ${prefix}-${n}'s certificate answered ${attached.status}.`);
        minted.push(certificate);
      }
      return minted;
    },
  };
}
