import { Client } from 'pg';

/** The alert job's fleet: users with mixed subscriptions, and active certificates, some inside the largest threshold. */
export interface AlertFleet {
  users: number;
  certificates: number;
  insideLargest: number;
}

/**
 * Seeds the fleet straight into the database (bench:alerts and bench:renewal-info): one manual
 * endpoint per certificate, tagged from env (3 values) x team (10 values); 40% of the users with
 * no subscription, the rest one team, or an env and a team.
 */
export async function seedAlertFleet(url: string, fleet: AlertFleet): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // Endpoints tagged from a small vocabulary: env (3 values) x team (10 values).
    await client.query(
      `INSERT INTO endpoints (name, type, tags, search_text)
       SELECT format('endpoint-%s', i), 'manual', ARRAY[(ARRAY['env:prod','env:test','env:dev'])[1 + i % 3], format('team:%s', i % 10)], format('endpoint-%s', i)
         FROM generate_series(1, $1) AS i`,
      [fleet.certificates],
    );
    // `insideLargest` certificates expire within 30 days, the rest between 31 and 365 days.
    await client.query(
      `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text, not_before, not_after,
              key_algorithm, signature_algorithm, is_ca, self_signed)
       SELECT encode(sha256(i::text::bytea), 'hex'), encode(sha256(('s' || i)::bytea), 'hex'), sha256(i::text::bytea), to_hex(i), format('CN=c%s', i), 'CN=CA',
              format('c%s.example.com', i), '{}', '', now() - interval '60 days',
              CASE WHEN i <= $2 THEN now() + (i % 30) * interval '1 day' + interval '1 hour' ELSE now() + (31 + i % 335) * interval '1 day' END,
              'ECDSA', 'ecdsa-with-SHA256', false, false
         FROM generate_series(1, $1) AS i`,
      [fleet.certificates, fleet.insideLargest],
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
      [fleet.users],
    );
    await client.query(`UPDATE users SET notify = false WHERE email NOT LIKE 'user-%'`);
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}
