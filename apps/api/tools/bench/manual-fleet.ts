import { Client } from 'pg';

/**
 * Seeds `count` manual endpoints and the certificates `certificatesSql` inserts (bound to `count`
 * as $1, then `params`), each certificate current on an endpoint of its own, then runs `more`
 * on the same connection and analyzes. `seeded` tells the seeded certificates from any the API
 * stored itself (a root store's anchors), so that only they are linked.
 */
export async function seedManualFleet(
  url: string,
  fleet: { count: number; certificatesSql: string; params?: unknown[]; seeded?: string },
  more: (client: Client) => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO endpoints (name, type, tags, search_text)
       SELECT format('endpoint-%s', i), 'manual', '{}', format('endpoint-%s', i) FROM generate_series(1, $1) AS i`,
      [fleet.count],
    );
    await client.query(fleet.certificatesSql, [fleet.count, ...(fleet.params ?? [])]);
    await client.query(
      `INSERT INTO endpoint_certificates (endpoint_id, fingerprint, cert_use, is_current, not_after, first_seen_at, last_seen_at)
       SELECT e.id, c.fingerprint, 'manual', true, c.not_after, now(), now()
         FROM (SELECT id, row_number() OVER (ORDER BY name) AS n FROM endpoints) e
         JOIN (SELECT fingerprint, not_after, row_number() OVER (ORDER BY fingerprint) AS n
                 FROM certificates WHERE ${fleet.seeded ?? 'true'}) c USING (n)`,
    );
    await more(client);
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}
