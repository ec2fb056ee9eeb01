import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { mintCertificate, mintChain, type MintedCertificate } from '@certkeeper/domain/testing';
import { MAINTENANCE_TASK_LOCK_KEYS } from '../src/database/advisory-lock-keys';
import { databaseUrl } from './support/test-database';
import { bearer, createTestApp, login } from './support/test-app';

const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

describe('maintenance', () => {
  it('purges old history, then prunes exactly the certificates nothing references', async () => {
    const t = await createTestApp();
    try {
      const admin = await login(t);
      const sql = t.app.get(DataSource);
      const upload = (pem: string) =>
        t.http.post('/api/v1/certificates').set(bearer(admin)).set('Content-Type', 'application/x-pem-file').send(pem).expect(201);
      const chain = await mintChain();
      const [retired, loose, anchor] = await Promise.all([
        mintCertificate({ subject: 'CN=retired.example.com' }),
        mintCertificate({ subject: 'CN=loose.example.com' }),
        mintCertificate({ subject: 'CN=Anchor Root', ca: true }),
      ]);
      const endpoint = (
        (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name: 'web', type: 'manual' }).expect(201)).body as { id: string }
      ).id;
      const linkTo = (pem: string) =>
        t.http.post(`/api/v1/endpoints/${endpoint}/certificate`).set(bearer(admin)).set('Content-Type', 'application/x-pem-file').send(pem);
      await linkTo(retired.pem).expect(201);
      await linkTo(chain.leaf.pem + chain.intermediate.pem).expect(201); // retired is now historical; the intermediate stored
      await upload(loose.pem);
      await upload(anchor.pem);
      await sql.query(`INSERT INTO root_store_anchors (store_id, fingerprint) VALUES ('mozilla', $1)`, [fingerprintOf(anchor)]);
      // History: an old run that saw the retired certificate, and the latest run (kept, however old).
      await sql.query(`UPDATE endpoint_certificates SET last_seen_at = now() - interval '400 days' WHERE fingerprint = $1`, [
        fingerprintOf(retired),
      ]);
      await sql.query(
        `INSERT INTO scan_history (endpoint_id, scanned_at, success, fingerprint) VALUES ($1, now() - interval '500 days', true, $2), ($1, now() - interval '450 days', true, $3)`,
        [endpoint, fingerprintOf(retired), fingerprintOf(chain.leaf)],
      );

      const purge = (await t.http.post('/api/v1/maintenance/tasks/purge-history/run').set(bearer(admin)).expect(200)).body as {
        outcome: string;
        counts: Record<string, number>;
      };
      expect(purge).toMatchObject({ outcome: 'succeeded', counts: { scanHistory: 1, historicalLinks: 1 } });
      const prune = (await t.http.post('/api/v1/maintenance/tasks/prune-certificates/run').set(bearer(admin)).expect(200)).body as {
        counts: Record<string, number>;
      };
      expect(prune.counts).toEqual({ certificates: 2 });

      const remaining = (await sql.query<{ fingerprint: string }[]>('SELECT fingerprint FROM certificates'))
        .map((r) => r.fingerprint)
        .sort();
      expect(remaining).toEqual([fingerprintOf(chain.leaf), fingerprintOf(chain.intermediate), fingerprintOf(anchor)].sort());

      const tasks = (await t.http.get('/api/v1/maintenance/tasks').set(bearer(admin)).expect(200)).body as {
        name: string;
        schedule: string;
        lastOutcome: string | null;
        lastCounts: unknown;
      }[];
      expect(tasks.map((task) => [task.name, task.schedule, task.lastOutcome])).toEqual([
        ['refresh-root-stores', '30 3 * * *', null],
        ['purge-history', '30 3 * * *', 'succeeded'],
        ['prune-certificates', '30 3 * * *', 'succeeded'],
        ['purge-alert-records', '30 3 * * *', null],
        ['refresh-renewal-info', '45 * * * *', null],
        ['check-revocation', '45 * * * *', null],
      ]);
      const audit = (await t.http.get('/api/v1/audit').query({ action: 'maintenance:prune-certificates' }).set(bearer(admin)).expect(200))
        .body as { totalCount: number };
      expect(audit.totalCount).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('purges the dedup records of certificates no longer current anywhere', async () => {
    const t = await createTestApp();
    try {
      const admin = await login(t);
      const sql = t.app.get(DataSource);
      const [me] = await sql.query<{ id: string }[]>('SELECT id FROM users LIMIT 1');
      await sql.query(
        `INSERT INTO notification_deliveries (recipient, event_type, fingerprint, bucket, user_id, delivered_at) VALUES ('user:' || $1, 'cert_expiring', 'gone', 7, $1::uuid, now())`,
        [me.id],
      );
      const result = (await t.http.post('/api/v1/maintenance/tasks/purge-alert-records/run').set(bearer(admin)).expect(200)).body as {
        counts: Record<string, number>;
      };
      expect(result.counts).toEqual({ alertRecords: 1 });
    } finally {
      await t.close();
    }
  });

  it('shows a run another replica holds as running, refuses a second one (409) instead of running twice, and 404s unknown tasks', async () => {
    const t = await createTestApp();
    const other = new Client({ connectionString: databaseUrl(t.databaseName) });
    try {
      const admin = await login(t);
      await other.connect();
      await other.query('SELECT pg_advisory_lock($1)', [MAINTENANCE_TASK_LOCK_KEYS['prune-certificates']]); // prune-certificates, as another replica would hold it
      const busy = await t.http.post('/api/v1/maintenance/tasks/prune-certificates/run').set(bearer(admin)).expect(409);
      expect(busy.text).toContain('already running');
      const running = async () =>
        ((await t.http.get('/api/v1/maintenance/tasks').set(bearer(admin)).expect(200)).body as { name: string; running: boolean }[])
          .filter((task) => task.running)
          .map((task) => task.name);
      expect(await running()).toEqual(['prune-certificates']);
      await other.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_TASK_LOCK_KEYS['prune-certificates']]);
      expect(await running()).toEqual([]);
      await t.http.post('/api/v1/maintenance/tasks/prune-certificates/run').set(bearer(admin)).expect(200);
      await t.http.post('/api/v1/maintenance/tasks/defragment/run').set(bearer(admin)).expect(404);
      const operator = (
        (
          await t.http
            .post('/api/v1/users')
            .set(bearer(admin))
            .send({ email: 'op@example.com', role: 'operator', password: 'operator-pass-1' })
            .expect(201)
        ).body as { id: string }
      ).id;
      expect(operator).toBeDefined();
      const operatorToken = (
        (await t.http.post('/api/v1/auth/login').send({ email: 'op@example.com', password: 'operator-pass-1' }).expect(200)).body as {
          token: string;
        }
      ).token;
      await t.http.get('/api/v1/maintenance/tasks').set(bearer(operatorToken)).expect(200);
      await t.http.post('/api/v1/maintenance/tasks/purge-history/run').set(bearer(operatorToken)).expect(403);
    } finally {
      await other.end();
      await t.close();
    }
  });
});
