import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MaintenanceService, type TaskResult } from '../../src/modules/maintenance/maintenance.service';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';

/**
 * The maintenance figures (docs/api-contract.md section 5): the nightly purge and prune over
 * 1,000,000 scan-history rows.
 * 10,000 host endpoints scanned every 7.3 days for two years (100 history rows each), their
 * certificate rotated every quarter (8 certificates each, the older ones historical links), all
 * leaves under one stored CA. With the default retention (365 days) about half the history, the
 * historical links older than a year and the certificates only they referenced go.
 */

const ENDPOINTS = Number(process.env.BENCH_MAINTENANCE_ENDPOINTS ?? 10_000);
const HISTORY_PER_ENDPOINT = 100;
const CERTIFICATES_PER_ENDPOINT = 8;
const RUNS = 3;

/** Seeds over its own connection: the application's pool has a statement timeout the million-row inserts would outlive. */
async function seed(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await insertRows(client);
  } finally {
    await client.end();
  }
}

async function insertRows(sql: Client): Promise<void> {
  await sql.query('TRUNCATE endpoints, certificates, notification_deliveries CASCADE');
  const scanner = (await sql.query<{ id: string }>('SELECT id FROM scanners WHERE is_default')).rows[0].id;
  await sql.query(
    `INSERT INTO endpoints (name, type, scanner_id, tags, dns_name, port, search_text)
     SELECT format('endpoint-%s', lpad(i::text, 6, '0')), 'host', $2::uuid, '{}', format('host-%s.example.com', i), 443, format('host-%s.example.com', i)
       FROM generate_series(1, $1) AS i`,
    [ENDPOINTS, scanner],
  );
  await sql.query(
    `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, subject_dn_hash, common_name, sans, search_text,
            not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
     VALUES (encode(sha256('bench-ca'), 'hex'), encode(sha256('bench-ca-sha1'), 'hex'), sha256('bench-ca'), '01', 'CN=Bench CA', 'CN=Bench Root',
            'bench-ca', 'Bench CA', '{}', 'bench ca', now() - interval '5 years', now() + interval '5 years', 'RSA', 'sha256WithRSAEncryption', true, false)`,
  );
  // Certificate k of an endpoint was served from (730 - 91.25 k) to (730 - 91.25 (k + 1)) days ago; the last one is current.
  await sql.query(
    `CREATE TEMPORARY TABLE periods AS
     SELECT e.id AS endpoint_id, e.name, k, encode(sha256(format('%s/%s', e.name, k)::bytea), 'hex') AS fingerprint,
            now() - (730 - 91.25 * k) * interval '1 day' AS served_from, now() - (730 - 91.25 * (k + 1)) * interval '1 day' AS served_until
       FROM endpoints e, generate_series(0, $1 - 1) AS k`,
    [CERTIFICATES_PER_ENDPOINT],
  );
  await sql.query(
    `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, issuer_dn_hash, common_name, sans, search_text,
            not_before, not_after, key_algorithm, signature_algorithm, is_ca, self_signed)
     SELECT p.fingerprint, encode(sha256(('sha1/' || p.fingerprint)::bytea), 'hex'), sha256(p.fingerprint::bytea), to_hex(p.k), 'CN=' || p.name,
            'CN=Bench CA', 'bench-ca', p.name, ARRAY[p.name], p.name, p.served_from, p.served_until + interval '7 days', 'ECDSA', 'ecdsa-with-SHA256', false, false
       FROM periods p`,
  );
  await sql.query(
    `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
     SELECT p.endpoint_id, p.fingerprint, 'tls', p.k = $1 - 1, p.served_until + interval '7 days', p.served_from, LEAST(p.served_until, now())
       FROM periods p`,
    [CERTIFICATES_PER_ENDPOINT],
  );
  await sql.query(
    `INSERT INTO scan_history (endpoint_id, scanned_at, success, resolved_ip, fingerprint, tls_version, chain_complete, scanner_id)
     SELECT p.endpoint_id, s.at, true, '192.0.2.1', p.fingerprint, 'TLSv1.3', true, $2::uuid
       FROM periods p
       JOIN LATERAL (SELECT now() - (730 - 7.3 * n) * interval '1 day' AS at FROM generate_series(0, $1 - 1) AS n) s
         ON s.at >= p.served_from AND s.at < p.served_until`,
    [HISTORY_PER_ENDPOINT, scanner],
  );
  await sql.query('DROP TABLE periods');
  await sql.query('VACUUM (ANALYZE)');
  await sql.query('CHECKPOINT');
}

async function timed(run: () => Promise<TaskResult>): Promise<{ ms: number; result: TaskResult }> {
  const started = performance.now();
  const result = await run();
  if (result.outcome !== 'succeeded') throw new Error(`${result.name}: ${result.outcome}`);
  return { ms: performance.now() - started, result };
}

async function bench(app: NestExpressApplication, databaseUrl: string): Promise<void> {
  const sql = app.get(DataSource);
  const maintenance = app.get(MaintenanceService);
  const purge: number[] = [];
  const prune: number[] = [];
  let history = 0;
  let counts = '';
  for (let run = 0; run < RUNS; run += 1) {
    await seed(databaseUrl);
    [{ history }] = await sql.query<{ history: number }[]>('SELECT count(*)::int AS history FROM scan_history');
    const purged = await timed(() => maintenance.runTask('purge-history'));
    const pruned = await timed(() => maintenance.runTask('prune-certificates'));
    purge.push(purged.ms);
    prune.push(pruned.ms);
    counts = `${JSON.stringify(purged.result.counts)}, ${JSON.stringify(pruned.result.counts)}`;
  }
  process.stdout.write(`\nCertkeeper maintenance benchmark (${history} scan-history rows, ${ENDPOINTS} endpoints, retention 365 days)\n`);
  printFigure('purge-history', purge, '');
  printFigure('prune-certificates (after the purge)', prune, '');
  printFigure(
    'purge + prune',
    purge.map((ms, i) => ms + prune[i]),
    '<= 60 s',
  );
  process.stdout.write(`  removed per run: ${counts}\n`);
}

runBenchmark(() => withInProcessApp('maintenance', {}, bench));
