import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { LoginThrottle } from '../../src/modules/sessions/login-throttle';
import { SessionsRepository } from '../../src/modules/sessions/sessions.repository';
import { UsersRepository } from '../../src/modules/users/users.repository';
import { UsersService } from '../../src/modules/users/users.service';
import { median, percentile } from './lib';
import { runBenchmark, withInProcessApp } from './in-process';

/**
 * The sign-in figures (docs/performance.md):
 * - sign-in throughput and p95 over HTTP with the failure limits on, beside the same run with the
 *   throttle bypassed (what sign-in cost before it existed); target: at most 10% less throughput;
 * - the cost per request of the JWT revocation check: the user read of every request joined to
 *   its session row, beside the plain user read it replaced, with 10,000 live sessions; target
 *   under 0.2 ms at p95.
 * Rounds alternate so that a busy moment of the shared machine hits both variants alike.
 */

const USERS = 8;
const CLIENTS = 4;
const ROUND_SECONDS = 6;
const ROUNDS = 3;
const SESSIONS = 10_000;
const LOOKUPS = 4_000;
const PASSWORD = 'bench-sign-in-password';

interface Round {
  perSecond: number;
  p95: number;
}

async function signInRound(baseUrl: string, emails: string[]): Promise<Round> {
  const latencies: number[] = [];
  const deadline = performance.now() + ROUND_SECONDS * 1000;
  const begun = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; performance.now() < deadline; i += CLIENTS) {
        const started = performance.now();
        const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: emails[i % emails.length], password: PASSWORD }),
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - begun) / 1000), p95: percentile(latencies, 0.95) };
}

async function signInThroughput(app: NestExpressApplication): Promise<void> {
  const users = app.get(UsersService);
  const actor = { actor: 'bench', actorId: null, requestId: null };
  const emails = await Promise.all(
    Array.from(
      { length: USERS },
      async (_, i) => (await users.createUser({ email: `user-${i}@bench.test`, role: 'viewer', password: PASSWORD }, actor)).email,
    ),
  );
  await app.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

  const throttle = app.get(LoginThrottle);
  const guarded = throttle.guard.bind(throttle);
  const bypassed: LoginThrottle['guard'] = (_attempter, check) => check();
  const rounds: { limited: Round[]; bypassed: Round[] } = { limited: [], bypassed: [] };
  await signInRound(baseUrl, emails); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    throttle.guard = bypassed;
    rounds.bypassed.push(await signInRound(baseUrl, emails));
    throttle.guard = guarded;
    rounds.limited.push(await signInRound(baseUrl, emails));
  }
  const figure = (variant: Round[]) => ({ perSecond: median(variant.map((r) => r.perSecond)), p95: median(variant.map((r) => r.p95)) });
  const limited = figure(rounds.limited);
  const without = figure(rounds.bypassed);
  const format = (variant: Round[]) => variant.map((r) => r.perSecond.toFixed(2)).join(', ');
  process.stdout.write(`  sign-in over HTTP, ${CLIENTS} clients, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s (medians)\n`);
  process.stdout.write(
    `    limits on          ${limited.perSecond.toFixed(2)} sign-ins/s   p95 ${limited.p95.toFixed(0)} ms   [${format(rounds.limited)}]\n`,
  );
  process.stdout.write(
    `    throttle bypassed  ${without.perSecond.toFixed(2)} sign-ins/s   p95 ${without.p95.toFixed(0)} ms   [${format(rounds.bypassed)}]\n`,
  );
  const cost = 1 - limited.perSecond / without.perSecond;
  process.stdout.write(`    throughput cost of the limits ${(cost * 100).toFixed(1)}%   target ≤ 10%\n`);
}

async function revocationCheck(app: NestExpressApplication): Promise<void> {
  const dataSource = app.get(DataSource);
  const user = (await app.get(UsersRepository).findByEmail('user-0@bench.test'))!;
  await dataSource.query(
    `INSERT INTO sessions (user_id, method, created_at, expires_at)
     SELECT u.id, 'password', now(), now() + interval '12 hours' FROM users u, generate_series(1, $1 / (SELECT count(*) FROM users))`,
    [SESSIONS],
  );
  await dataSource.query('ANALYZE sessions');
  const [{ id: sessionId }] = await dataSource.query<{ id: string }[]>('SELECT id FROM sessions WHERE user_id = $1 LIMIT 1', [user.id]);
  const sessions = app.get(SessionsRepository);
  const users = app.get(UsersRepository);

  const time = async (lookup: () => Promise<unknown>) => {
    const latencies: number[] = [];
    for (let i = 0; i < LOOKUPS; i += 1) {
      const started = performance.now();
      if (!(await lookup())) throw new Error('the lookup found nobody');
      latencies.push(performance.now() - started);
    }
    return latencies;
  };
  const withSession = () => sessions.findUserOfSession(sessionId, user.id);
  const plain = () => users.findById(user.id);
  await time(withSession);
  await time(plain); // warm-up: plans cached, JIT warm
  const checked: number[] = [];
  const unchecked: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    unchecked.push(...(await time(plain)));
    checked.push(...(await time(withSession)));
  }
  const p95 = { checked: percentile(checked, 0.95), unchecked: percentile(unchecked, 0.95) };
  const p50 = { checked: percentile(checked, 0.5), unchecked: percentile(unchecked, 0.5) };
  const plan = await dataSource.query<{ 'QUERY PLAN': { 'Execution Time': number }[] }[]>(
    `EXPLAIN (ANALYZE, FORMAT JSON) SELECT u.* FROM users u JOIN sessions s ON s.id = $1 AND s.user_id = u.id WHERE u.id = $2`,
    [sessionId, user.id],
  );
  process.stdout.write(
    `  JWT revocation check: the per-request user read, ${SESSIONS.toLocaleString('en')} live sessions, ${ROUNDS * LOOKUPS} reads each\n`,
  );
  process.stdout.write(`    user read joined to its session  p50 ${p50.checked.toFixed(3)} ms   p95 ${p95.checked.toFixed(3)} ms\n`);
  process.stdout.write(`    plain user read (before)         p50 ${p50.unchecked.toFixed(3)} ms   p95 ${p95.unchecked.toFixed(3)} ms\n`);
  process.stdout.write(
    `    cost of the check at p95 ${(p95.checked - p95.unchecked).toFixed(3)} ms   target < 0.2 ms` +
      `   (server execution of the joined read: ${plan[0]['QUERY PLAN'][0]['Execution Time'].toFixed(3)} ms)\n`,
  );
}

runBenchmark(async () => {
  process.stdout.write('Sign-in and sessions\n');
  await withInProcessApp('sign-in', {}, async (app) => {
    await signInThroughput(app);
    await revocationCheck(app);
  });
});
