import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { RECORD_ALL_PAIRS_SQL, refreshSupersededSql } from '../../src/modules/renewals/superseded-by';
import { type ApiProcess, login, startApi, stopApi, withBenchDatabase } from './lib';

/**
 * 80% host, 15% saml, 5% manual endpoints, one certificate each, notAfter from -30 to +365 days,
 * and for one certificate in ten a stored renewal not deployed (docs/api-contract.md section 16:
 * its link keeps it), then VACUUM (ANALYZE). With `endpointsImported`, the endpoints are already there (see
 * importInventoryEndpoints) and only the certificates and links written here are vacuumed: the
 * endpoints stay as the import left them.
 */
export async function seedInventory(databaseUrl: string, rows: number, { endpointsImported = false } = {}): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const scanner = (await client.query<{ id: string }>('SELECT id FROM scanners WHERE is_default')).rows[0].id;
    if (!endpointsImported) await insertEndpoints(client, rows, scanner);
    // Certificates: notAfter spread from 30 days ago to 365 days ahead.
    await client.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, issuer_common_name, sans,
              dns_names, search_text, not_before, not_after, key_algorithm, key_size, signature_algorithm, is_ca, self_signed)
       SELECT encode(sha256(i::text::bytea), 'hex'), encode(sha256(('sha1-' || i)::text::bytea), 'hex'), sha256(i::text::bytea),
              to_hex(i), format('CN=host-%s.example.com', i), 'CN=Bench CA', format('host-%s.example.com', i), 'Bench CA',
              ARRAY[format('host-%s.example.com', i)], ARRAY[format('host-%s.example.com', i)],
              format('host-%s.example.com host-%s.example.com', i, i),
              now() - interval '60 days', now() - interval '30 days' + (i % 395) * interval '1 day', 'ECDSA', 256, 'ecdsa-with-SHA256', false, false
         FROM generate_series(1, $1) AS i`,
      [rows],
    );
    // Renewals, stored two days ago and never deployed: not linked, so the links below skip them.
    await client.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, issuer_common_name, sans,
              dns_names, search_text, not_before, not_after, key_algorithm, key_size, signature_algorithm, is_ca, self_signed, created_at)
       SELECT encode(sha256(('renewal-' || i)::bytea), 'hex'), encode(sha256(('sha1-renewal-' || i)::bytea), 'hex'),
              sha256(('renewal-' || i)::bytea), 'r' || to_hex(i), format('CN=host-%s.example.com', i), 'CN=Bench CA',
              format('host-%s.example.com', i), 'Bench CA', ARRAY[format('host-%s.example.com', i)], ARRAY[format('host-%s.example.com', i)],
              format('host-%s.example.com host-%s.example.com', i, i),
              now() - interval '3 days', now() + interval '87 days', 'ECDSA', 256, 'ecdsa-with-SHA256', false, false, now() - interval '2 days'
         FROM generate_series(10, $1, 10) AS i`,
      [rows],
    );
    // What storing them through the API records: each certificate's renewals. Analysed first, or
    // the planner, knowing nothing of the new rows, compares every pair instead of using the GIN index.
    await client.query('ANALYZE certificates');
    await client.query(RECORD_ALL_PAIRS_SQL);
    await client.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT e.id, c.fingerprint, CASE e.type WHEN 'host' THEN 'tls' WHEN 'saml' THEN 'signing' ELSE 'manual' END, true, c.not_after, now(), now()
         FROM (SELECT id, type, row_number() OVER (ORDER BY name) AS n FROM endpoints) e
         JOIN (SELECT fingerprint, not_after, row_number() OVER (ORDER BY serial_number) AS n FROM certificates
                WHERE serial_number NOT LIKE 'r%') c USING (n)`,
    );
    // What the links keep once the hourly pass saw the renewals wait the default 24 hours.
    await client.query(refreshSupersededSql('true', '$1', '$2'), [new Date(), 24]);
    // Measure a steady state: statistics fresh, visibility map set, dirty pages already written.
    await client.query(endpointsImported ? 'VACUUM (ANALYZE) certificates, endpoint_certificates' : 'VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** Endpoints 1 to `rows`: 80% host, 15% saml, 5% manual; tags from a small vocabulary (as inventoryEndpoint). */
async function insertEndpoints(client: Client, rows: number, scanner: string): Promise<void> {
  await client.query(
    `INSERT INTO endpoints (name, type, scanner_id, tags, dns_name, port, metadata_url, search_text)
       SELECT format('endpoint-%s', lpad(i::text, 6, '0')),
              CASE WHEN i % 20 < 16 THEN 'host' WHEN i % 20 < 19 THEN 'saml' ELSE 'manual' END,
              CASE WHEN i % 20 < 19 THEN $2::uuid END,
              ARRAY[(ARRAY['env:prod','env:test','env:dev'])[1 + i % 3], format('team:%s', i % 10)],
              CASE WHEN i % 20 < 16 THEN format('host-%s.example.com', i) END,
              CASE WHEN i % 20 < 16 THEN 443 END,
              CASE WHEN i % 20 >= 16 AND i % 20 < 19 THEN format('https://idp-%s.example.org/metadata', i) END,
              lower(format('endpoint-%s %s', lpad(i::text, 6, '0'),
                CASE WHEN i % 20 < 16 THEN format('host-%s.example.com', i) WHEN i % 20 < 19 THEN format('https://idp-%s.example.org/metadata', i) ELSE '' END))
         FROM generate_series(1, $1) AS i`,
    [rows, scanner],
  );
}

/** VACUUM (ANALYZE) of the whole database and a checkpoint: the state autovacuum reaches in time. */
export async function settleInventory(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** Endpoint `i` of the inventory as a bulk-import record: the name, type, tags and address of seedInventory's row `i`. */
export function inventoryEndpoint(i: number): Record<string, unknown> {
  const name = `endpoint-${String(i).padStart(6, '0')}`;
  const tags = [['env:prod', 'env:test', 'env:dev'][i % 3], `team:${i % 10}`];
  if (i % 20 < 16) return { name, type: 'host', dnsName: `host-${i}.example.com`, tags };
  if (i % 20 < 19) return { name, type: 'saml', metadataUrl: `https://idp-${i}.example.org/metadata`, tags };
  return { name, type: 'manual', tags };
}

/**
 * Imports endpoints 1 to `rows` through `POST /endpoints/bulk` in requests of `perRequest` rows,
 * as an operator's import would; resolves with the time it took in ms.
 */
export async function importInventoryEndpoints(api: ApiProcess, token: string, rows: number, perRequest: number): Promise<number> {
  const begun = performance.now();
  for (let first = 1; first <= rows; first += perRequest) {
    const count = Math.min(perRequest, rows - first + 1);
    const response = await fetch(`${api.baseUrl}/api/v1/endpoints/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: count }, (_, i) => inventoryEndpoint(first + i))),
      signal: AbortSignal.timeout(120_000),
    });
    const body = (await response.json()) as { created?: number };
    if (body.created !== count) throw new Error(`bulk import answered ${response.status}, created ${body.created}`);
  }
  return performance.now() - begun;
}

/**
 * An API process on a fresh embedded PostgreSQL seeded with `rows` endpoints, certificates and
 * current links (then `prepare`, when given), and a token of its administrator: what the
 * benchmarks of the reads at 100,000 rows start from. The process and database go afterwards.
 */
export async function withSeededApi(
  name: string,
  rows: number,
  work: (api: ApiProcess, token: string, databaseUrl: string) => Promise<void>,
  prepare?: (databaseUrl: string) => Promise<void>,
): Promise<void> {
  await withApiOnFreshDatabase(name, async (api, token, databaseUrl) => {
    const seeding = performance.now();
    await seedInventory(databaseUrl, rows);
    await prepare?.(databaseUrl);
    process.stdout.write(`seeded ${rows} endpoints, certificates and links in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    await work(api, token, databaseUrl);
  });
}

/** An API process on a fresh, empty embedded PostgreSQL and a token of its administrator; both go afterwards. */
export async function withApiOnFreshDatabase(
  name: string,
  work: (api: ApiProcess, token: string, databaseUrl: string) => Promise<void>,
): Promise<void> {
  await withBenchDatabase(name, async (database) => {
    let api: ApiProcess | undefined;
    try {
      const password = 'bench-password-1';
      api = await startApi({
        DATABASE_URL: database.url,
        JWT_SECRET: randomBytes(32).toString('hex'),
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        ADMIN_EMAIL: 'bench@example.com',
        ADMIN_PASSWORD: password,
      });
      await work(api, await login(api.baseUrl, 'bench@example.com', password), database.url);
    } finally {
      if (api) await stopApi(api);
    }
  });
}
