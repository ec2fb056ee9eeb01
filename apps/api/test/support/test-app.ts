import type { NestExpressApplication } from '@nestjs/platform-express';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomBytes } from 'node:crypto';
import { OutboundDenyList, parseOutboundDeny } from '@certkeeper/net';
import request from 'supertest';
import { JsonLogger } from '../../src/common/logging/json-logger';
import type { Role } from '../../src/common/auth/permissions';
import type { AppConfig } from '../../src/config/app-config';
import { createApp } from '../../src/create-app';
import { ScannersService } from '../../src/modules/scanners/scanners.service';
import { UsersService } from '../../src/modules/users/users.service';
import { FakeClock } from './fake-clock';
import { databaseUrl, TEMPLATE_DATABASE, withAdminClient } from './test-database';

export const ADMIN_EMAIL = 'admin@certkeeper.test';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestApp {
  app: NestExpressApplication;
  /** Requests through the real HTTP pipeline (supertest on the app's server). */
  http: ReturnType<typeof request>;
  /** Where the app listens (127.0.0.1, a free port), for clients other than supertest. */
  baseUrl: string;
  clock: FakeClock;
  config: AppConfig;
  databaseName: string;
  /** Every structured log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export function testConfig(databaseName: string, overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: databaseUrl(databaseName),
    jwtSecret: randomBytes(32).toString('hex'),
    jwtTtlSeconds: 12 * 3600,
    encryptionKey: randomBytes(32),
    publicUrl: null,
    admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    embeddedScanner: false,
    // Parsing Node's 140-odd bundled roots in every test app would only slow the suite; trust tests turn it on.
    seedRootStores: false,
    retentionDays: 365,
    // Never the real CCADB: a refresh fails fast (connection refused) unless a test serves its own data.
    rootStoreSources: {
      csvUrl: 'http://127.0.0.1:9/ccadb/AllIncludedRootCertsCSV',
      pemUrls: ['http://127.0.0.1:9/ccadb/roots.pem'],
      fetchTimeoutMs: 10_000,
    },
    outboundDeny: outboundDenyOfTheRun(),
    logLevel: 'debug',
    ...overrides,
  };
}

/**
 * OUTBOUND_DENY of the test run when set, else the default list (which lets loopback through):
 * `OUTBOUND_DENY=127.0.0.0/8 npx jest apps/api/test/settings.spec.ts` shows the guard refusing the
 * loopback SMTP servers of the tests. The agent-e2e tests pass it on to the agents they start.
 */
function outboundDenyOfTheRun(): OutboundDenyList {
  const raw = process.env.OUTBOUND_DENY?.trim();
  if (!raw) return OutboundDenyList.DEFAULT;
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(`OUTBOUND_DENY: ${parsed.problem}`);
  return parsed.value;
}

/** A fresh database cloned from the migrated template. */
export async function createTestDatabase(): Promise<string> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  return name;
}

/**
 * The whole application on its own database, with a fake clock and captured logs; or, given
 * `replicaOf`, a second application on that one's database, as another replica would be.
 */
export async function createTestApp(overrides: Partial<AppConfig> = {}, replicaOf?: TestApp): Promise<TestApp> {
  const databaseName = replicaOf?.databaseName ?? (await createTestDatabase());
  const config = testConfig(databaseName, overrides);
  const clock = new FakeClock();
  const logs: Record<string, unknown>[] = [];
  const logger = new JsonLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const app = await createApp(config, { logger, clock });
  // The jobs' wall-clock schedules stay off: a test runs a job by calling it, so an hourly alert
  // run or a minute's discovery tick never lands between two steps of a test.
  for (const job of app.get(SchedulerRegistry).getCronJobs().values()) await job.stop();
  // Listen once: supertest on an unbound server opens and closes a port per request, which
  // resets connections when the machine is busy. Idle keep-alive sockets stay open meanwhile.
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer();
  server.keepAliveTimeout = 60_000;
  const baseUrl = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  return {
    app,
    http: request(baseUrl),
    baseUrl,
    clock,
    config,
    databaseName,
    logs,
    close: async () => {
      await app.close();
      if (replicaOf) return;
      await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    },
  };
}

export async function login(testApp: TestApp, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<string> {
  const response = await testApp.http.post('/api/v1/auth/login').send({ email, password }).expect(200);
  return (response.body as { token: string }).token;
}

/** A fresh application and its administrator's token: what most specs start from. */
export async function createSignedInTestApp(): Promise<{ t: TestApp; admin: string }> {
  const t = await createTestApp();
  return { t, admin: await login(t) };
}

let userCounter = 0;

/** A user created through the real service, signed in. */
export async function createUser(
  testApp: TestApp,
  role: Role,
  fields: { notify?: boolean } = {},
): Promise<{ id: string; email: string; password: string; token: string }> {
  userCounter += 1;
  const email = `${role}-${userCounter}-${randomBytes(3).toString('hex')}@certkeeper.test`;
  const password = `password-${randomBytes(6).toString('hex')}`;
  const user = await testApp.app
    .get(UsersService)
    .createUser(
      { email, role, password, name: `${role} ${userCounter}`, notify: fields.notify },
      { actor: 'test', actorId: null, requestId: null },
    );
  return { id: user.id, email, password, token: await login(testApp, email, password) };
}

/** A scanner created through the real service, with its raw token. */
export async function createScanner(
  testApp: TestApp,
  name = `scanner-${randomBytes(3).toString('hex')}`,
): Promise<{ id: string; token: string }> {
  const { id, token } = await testApp.app.get(ScannersService).createScanner({ name }, { actor: 'test', actorId: null, requestId: null });
  return { id, token };
}

/** The default scanner (the embedded agent's), with a fresh token regenerated through the API by `admin`. */
export async function defaultScannerCredentials(testApp: TestApp, admin: string): Promise<{ id: string; token: string }> {
  const scanners = (await testApp.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as { id: string; isDefault: boolean }[];
  const id = scanners.find((scanner) => scanner.isDefault)!.id;
  const { token } = (await testApp.http.post(`/api/v1/scanners/${id}/regenerate-token`).set(bearer(admin)).expect(200)).body as {
    token: string;
  };
  return { id, token };
}

/**
 * The secret part of a raw API key, `<prefix><keyId>_<secret>`: what no listing or audit entry
 * may show. It is base64url, so it may hold `_` itself.
 */
export function apiKeySecret(key: { key: string; keyId: string }): string {
  return key.key.slice(key.key.indexOf(`${key.keyId}_`) + key.keyId.length + 1);
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A manual endpoint named `name` presenting `pem`, created through the API by `token`: the endpoint's id. */
export async function manualEndpointWith(testApp: TestApp, token: string, name: string, pem: string, tags: string[] = []): Promise<string> {
  const created = await testApp.http.post('/api/v1/endpoints').set(bearer(token)).send({ name, type: 'manual', tags }).expect(201);
  const id = (created.body as { id: string }).id;
  await testApp.http
    .post(`/api/v1/endpoints/${id}/certificate`)
    .set(bearer(token))
    .set('Content-Type', 'application/x-pem-file')
    .send(pem)
    .expect(201);
  return id;
}
