import { Agent, request } from 'node:http';
import { type HttpReceiver, recordFigure, startHttpReceiver } from '@certkeeper/net/testing';
import { BENCH_ADMIN, benchApiEnv, clusterCpuSeconds, cpuMsOf, login, memoryOf, startApi, stopApi, withBenchDatabase } from './lib';
import { seedManualFleet } from './manual-fleet';

/**
 * Notification channels (docs/api-contract.md section 17): the alert job delivering to 20 channels
 * (every kind) over 5,000 due certificates, each channel a local node:http receiver. Its rate,
 * deliveries per second, stands beside a bare HTTP client's rate to the same receivers (one
 * request at a time, a fresh connection each), and the API process's peak memory (VmHWM) beside
 * its target. The job keeps each channel's connections for the run; the bare client's rate on one
 * kept connection per receiver is printed too, for the record, not as the target's measure.
 * `--small`: 5 channels over 200 certificates, for a quick check.
 */

const SMALL = process.argv.includes('--small');
const CHANNELS = SMALL ? 5 : 20;
const CERTIFICATES = SMALL ? 200 : 5_000;
const BARE_REQUESTS = SMALL ? 500 : 5_000;
const KINDS = ['webhook', 'slack', 'teams', 'ntfy', 'pagerduty'] as const;

function seed(url: string): Promise<void> {
  return seedManualFleet(
    url,
    {
      count: CERTIFICATES,
      // Every certificate expires within 30 days: one cert_expiring delivery per channel.
      certificatesSql: `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text, not_before, not_after,
              key_algorithm, signature_algorithm, is_ca, self_signed)
       SELECT encode(sha256(i::text::bytea), 'hex'), encode(sha256(('s' || i)::bytea), 'hex'), sha256(i::text::bytea), to_hex(i), format('CN=c%s', i), 'CN=CA',
              format('c%s.example.com', i), ARRAY[format('c%s.example.com', i)], '', now() - interval '60 days',
              now() + (i % 30) * interval '1 day' + interval '1 hour', 'ECDSA', 'ecdsa-with-SHA256', false, false
         FROM generate_series(1, $1) AS i`,
      // Not the root stores' anchors the API has stored by now.
      seeded: "issuer = 'CN=CA'",
    },
    async (client) => void (await client.query('UPDATE users SET notify = false')),
  );
}

/**
 * The bare client: one POST at a time, `count` of them, a fresh connection each or, with
 * `keptConnections`, one kept connection per receiver; its rate, and the CPU per request of this
 * process (client and receivers alike).
 */
async function bareRate(
  receivers: HttpReceiver[],
  count: number,
  { keptConnections = false } = {},
): Promise<{ rate: number; cpuMsEach: number }> {
  const body = JSON.stringify({ text: 'x'.repeat(600) });
  const agents = receivers.map(() => (keptConnections ? new Agent({ keepAlive: true, maxSockets: 1 }) : false));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let n = 0; n < count; n += 1) {
    const url = new URL(`${receivers[n % receivers.length].url}/bare`);
    const agent = agents[n % receivers.length];
    await new Promise<void>((resolve, reject) => {
      const sent = request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  }
  const rate = count / ((performance.now() - started) / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  for (const agent of agents) if (agent) agent.destroy();
  return { rate, cpuMsEach: (cpu.user + cpu.system) / 1000 / count };
}

async function main(): Promise<void> {
  await withBenchDatabase('channels', async (database) => {
    const receivers = await Promise.all(Array.from({ length: CHANNELS }, () => startHttpReceiver(() => ({ status: 202 }))));
    // The API migrates the database and creates its administrator; the seed follows.
    const api = await startApi(benchApiEnv(database.url));
    try {
      await seed(database.url);
      const token = await login(api.baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${api.baseUrl}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(4 * 3600_000),
        });
      for (let n = 0; n < CHANNELS; n += 1) {
        const kind = KINDS[n % KINDS.length];
        const created = await call('POST', '/notification-channels', {
          name: `bench-${n}`,
          kind,
          url: `${receivers[n].url}/in/${n}`,
          ...(kind === 'pagerduty' ? { secret: `routing-key-${n}` } : {}),
        });
        if (created.status !== 201) throw new Error(`creating channel ${n} answered ${created.status}: ${await created.text()}`);
      }

      // CPU per delivery beside the rate: on a shared machine the rate swings with the neighbours' load, the CPU spent much less.
      const postgresCpu = await clusterCpuSeconds(database.url);
      const cpuBefore = { pg: await postgresCpu(), api: await cpuMsOf(api.pid), bench: process.cpuUsage() };
      const started = performance.now();
      const run = await call('POST', '/alerts/run');
      const seconds = (performance.now() - started) / 1000;
      const benchCpu = process.cpuUsage(cpuBefore.bench);
      const cpuAfter = { pg: await postgresCpu(), api: await cpuMsOf(api.pid) };
      const totals = (await run.json()) as { alertsSent: number; alreadySent: number; failed: number };
      const received = receivers.reduce((sum, receiver) => sum + receiver.requests.length, 0);
      const jobRate = totals.alertsSent / seconds;
      const peak = (await memoryOf(api.pid)).peak;
      const bare = await bareRate(receivers, BARE_REQUESTS);
      const bareKept = await bareRate(receivers, BARE_REQUESTS, { keptConnections: true });
      const ratio = jobRate / bare.rate;
      const perDelivery = (ms: number) => (ms / Math.max(1, totals.alertsSent)).toFixed(2);

      process.stdout.write(
        `\nCertkeeper notification channels benchmark (${CHANNELS} channels, ${CERTIFICATES} due certificates${SMALL ? ', --small' : ''})\n`,
      );
      const rows: [string, string, string, boolean][] = [
        [
          'channels: deliveries per second, share of a bare client',
          `${jobRate.toFixed(0)}/s (${(ratio * 100).toFixed(0)} % of ${bare.rate.toFixed(0)}/s)`,
          '>= 50 %',
          ratio >= 0.5,
        ],
        ['channels: API peak memory (VmHWM)', `${peak.toFixed(0)} MB`, '<= 250 MB', peak <= 250],
      ];
      for (const [row, measured, target, met] of rows) {
        process.stdout.write(`  ${row.padEnd(60)} ${measured.padEnd(32)} target ${target}${met ? '' : '  (missed)'}\n`);
        if (!SMALL) recordFigure({ row, measured, target, met });
      }
      process.stdout.write(
        `  ${'CPU per delivery (PostgreSQL, API, receivers)'.padEnd(60)} ${perDelivery((cpuAfter.pg - cpuBefore.pg) * 1000)} ms, ${perDelivery(cpuAfter.api - cpuBefore.api)} ms, ${perDelivery((benchCpu.user + benchCpu.system) / 1000)} ms (bare client and receiver ${bare.cpuMsEach.toFixed(2)} ms)\n`,
      );
      process.stdout.write(
        `  ${'bare client on one kept connection per receiver (no target)'.padEnd(60)} ${bareKept.rate.toFixed(0)}/s, ${bareKept.cpuMsEach.toFixed(2)} ms of CPU a request\n`,
      );
      process.stdout.write(
        `  ${'deliveries'.padEnd(60)} ${totals.alertsSent} sent, ${totals.alreadySent} already sent, ${totals.failed} failed, ${received} received in ${seconds.toFixed(1)} s\n`,
      );
    } finally {
      await stopApi(api);
      await Promise.all(receivers.map((receiver) => receiver.close()));
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
