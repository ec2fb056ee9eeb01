import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { AlertsService } from '../../src/modules/alerts/alerts.service';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';

/**
 * The alert figure (docs/performance.md): the job's decision time (everything but SMTP) for 500 users with mixed
 * subscriptions over 50,000 active certificates, 5,000 of them inside the largest threshold.
 * Runs the application in this process against a seeded embedded PostgreSQL.
 */

const USERS = 500;
const CERTIFICATES = 50_000;
const INSIDE_LARGEST = 5_000;
const RUNS = 3;

async function seed(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // Endpoints tagged from a small vocabulary: env (3 values) x team (10 values).
    await client.query(
      `INSERT INTO endpoints (name, type, tags, search_text)
       SELECT format('endpoint-%s', i), 'manual', ARRAY[(ARRAY['env:prod','env:test','env:dev'])[1 + i % 3], format('team:%s', i % 10)], format('endpoint-%s', i)
         FROM generate_series(1, $1) AS i`,
      [CERTIFICATES],
    );
    // 5,000 certificates expire within 30 days, the rest between 31 and 365 days.
    await client.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text, not_before, not_after,
              key_algorithm, signature_algorithm, is_ca, self_signed)
       SELECT encode(sha256(i::text::bytea), 'hex'), encode(sha256(('s' || i)::bytea), 'hex'), sha256(i::text::bytea), to_hex(i), format('CN=c%s', i), 'CN=CA',
              format('c%s.example.com', i), '{}', '', now() - interval '60 days',
              CASE WHEN i <= $2 THEN now() + (i % 30) * interval '1 day' + interval '1 hour' ELSE now() + (31 + i % 335) * interval '1 day' END,
              'ECDSA', 'ecdsa-with-SHA256', false, false
         FROM generate_series(1, $1) AS i`,
      [CERTIFICATES, INSIDE_LARGEST],
    );
    await client.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT e.id, c.fingerprint, 'manual', true, c.not_after, now(), now()
         FROM (SELECT id, row_number() OVER (ORDER BY name) AS n FROM endpoints) e
         JOIN (SELECT fingerprint, not_after, row_number() OVER (ORDER BY fingerprint) AS n FROM certificates) c USING (n)`,
    );
    // Mixed subscriptions: 40% none (everything), the rest one team, or an env and a team.
    await client.query(
      `INSERT INTO users (email, name, role, notify, tag_subscriptions)
       SELECT format('user-%s@example.com', i), format('User %s', i), 'viewer', true,
              CASE WHEN i % 5 < 2 THEN '{}'::text[]
                   WHEN i % 5 < 4 THEN ARRAY[format('team:%s', i % 10)]
                   ELSE ARRAY[(ARRAY['env:prod','env:test','env:dev'])[1 + i % 3], format('team:%s', i % 10)] END
         FROM generate_series(1, $1) AS i`,
      [USERS],
    );
    await client.query(`UPDATE users SET notify = false WHERE email NOT LIKE 'user-%'`);
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

async function bench(app: NestExpressApplication, databaseUrl: string): Promise<void> {
  await seed(databaseUrl);
  const alerts = app.get(AlertsService);
  const times: number[] = [];
  let pending = 0;
  let alreadySent = 0;
  let peakHeap = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const decision = await alerts.countDueAlerts();
    times.push(performance.now() - started);
    ({ pending, alreadySent } = decision);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  process.stdout.write(
    `\nCertkeeper alert job benchmark (${USERS} users, ${CERTIFICATES} active certificates, ${INSIDE_LARGEST} inside the largest threshold)\n`,
  );
  printFigure('decision time, first run (nothing delivered yet)', times, '<= 20 s');
  process.stdout.write(
    `  ${'alerts decided'.padEnd(60)} ${pending} to send, ${alreadySent} already sent; heap after each run at most ${(peakHeap / 1048576).toFixed(0)} MB\n`,
  );
}

runBenchmark(() => withInProcessApp('alerts', {}, bench));
