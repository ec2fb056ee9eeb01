import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { mintCertificate, mintCrl } from '@certkeeper/domain/testing';
import { recordFigure } from '@certkeeper/net/testing';
import { withSeededApi } from './inventory-seed';
import { type ApiProcess, measure, memoryOf } from './lib';

/**
 * Revocation and findings (docs/api-contract.md section 18) at scale, on the inventory seed:
 * - the endpoint list filtered by a finding at BENCH_ROWS endpoints (default 100,000), p95 from
 *   sequential requests (target <= 15 ms);
 * - check-revocation over every seeded certificate sharing BENCH_CRLS CRLs (default 100) of
 *   BENCH_CRL_ENTRIES entries each (default 10,000), served from 127.0.0.1: wall time (target
 *   <= 60 s) and the API's peak memory (target <= 250 MB).
 * Small sizes for a quick check: BENCH_ROWS=2000 BENCH_CRLS=5 BENCH_CRL_ENTRIES=1000.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const CRLS = Number(process.env.BENCH_CRLS ?? 100);
const CRL_ENTRIES = Number(process.env.BENCH_CRL_ENTRIES ?? 10_000);

/** Stored findings spread as a fleet has them: most endpoints untrusted-free, a few of each critical code. */
async function seedFindings(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO endpoint_findings (endpoint_id, codes, computed_at)
       SELECT id, array_remove(ARRAY[
                CASE WHEN abs(hashtext(id::text)) % 100 = 0 THEN 'expired' END,
                CASE WHEN abs(hashtext(id::text)) % 50 = 1 THEN 'hostname_mismatch' END,
                CASE WHEN abs(hashtext(id::text)) % 5 = 2 THEN 'untrusted' END,
                CASE WHEN abs(hashtext(id::text)) % 10 = 3 THEN 'legacy_protocol' END,
                CASE WHEN abs(hashtext(id::text)) % 1000 = 4 THEN 'revoked' END], NULL), now()
         FROM endpoints`,
    );
    await client.query('VACUUM (ANALYZE) endpoint_findings');
  } finally {
    await client.end();
  }
}

async function benchListFilter(api: ApiProcess, token: string): Promise<void> {
  const runs: [string, string][] = [
    ['finding=hostname_mismatch (2%)', '/api/v1/endpoints?finding=hostname_mismatch'],
    ['finding=revoked (0.1%)', '/api/v1/endpoints?finding=revoked'],
    ['finding=expired&finding=revoked', '/api/v1/endpoints?finding=expired&finding=revoked'],
    ['finding=untrusted&sort=daysRemaining (20%)', '/api/v1/endpoints?finding=untrusted&sort=daysRemaining'],
    ['has_findings=true', '/api/v1/endpoints?has_findings=true'],
  ];
  let worst = 0;
  process.stdout.write(`\nGET /endpoints filtered by findings at ${ROWS} endpoints (200 sequential requests, then 8 clients)\n`);
  for (const [label, path] of runs) {
    const result = await measure(`${api.baseUrl}${path}`, token);
    worst = Math.max(worst, result.p95);
    process.stdout.write(
      `  ${label.padEnd(46)} p50 ${result.p50.toFixed(1).padStart(6)} ms   p95 ${result.p95.toFixed(1).padStart(6)} ms (target <= 15)   ` +
        `${result.perSecond.toFixed(0).padStart(5)} req/s\n`,
    );
  }
  recordFigure({
    row: `GET /endpoints filtered by a finding at ${ROWS}, worst p95`,
    measured: `${worst.toFixed(1)} ms`,
    target: '<= 15 ms',
    met: worst <= 15,
  });
}

async function benchCheckRevocation(api: ApiProcess, token: string, databaseUrl: string): Promise<void> {
  const ca = await mintCertificate({ subject: 'CN=Bench CRL CA', ca: true });
  const upload = await fetch(`${api.baseUrl}/api/v1/certificates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-pem-file' },
    body: ca.pem,
  });
  if (!upload.ok) throw new Error(`uploading the CA answered ${upload.status}`);
  // One list of CRL_ENTRIES serials, published at CRLS addresses: each is fetched, verified and stored on its own.
  const entries = Array.from({ length: CRL_ENTRIES }, (_, i) => ({ serialNumber: (0x10000000 + i).toString(16) }));
  const crl = Buffer.from(await mintCrl(ca, { entries }));
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(crl));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Every seeded certificate issued by the CA and naming one of the CRLs; one in a hundred revoked.
    await client.query(
      `UPDATE certificates c
          SET issuer_dn_hash = ca.subject_dn_hash,
              crl_distribution_points = ARRAY[$1 || '/crl-' || (abs(hashtext(c.fingerprint)) % $2) || '.crl'],
              serial_number = CASE WHEN abs(hashtext(c.fingerprint)) % 100 = 0
                                   THEN to_hex(268435456 + abs(hashtext(c.fingerprint || 'x')) % $3) ELSE c.serial_number END
         FROM certificates ca
        WHERE ca.common_name = 'Bench CRL CA' AND c.fingerprint <> ca.fingerprint`,
      [base, CRLS, CRL_ENTRIES],
    );
    await client.query('VACUUM (ANALYZE) certificates');
    const begun = performance.now();
    const response = await fetch(`${api.baseUrl}/api/v1/maintenance/tasks/check-revocation/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30 * 60 * 1000),
    });
    const result = (await response.json()) as { outcome: string; counts: Record<string, number> };
    const seconds = (performance.now() - begun) / 1000;
    const memory = await memoryOf(api.pid);
    const revoked = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM certificate_revocations WHERE status = 'revoked'`);
    // A run whose lists failed measures nothing: say why, and the row misses.
    const failures = await client.query<{ error: string; n: number }>(
      'SELECT error, count(*)::int AS n FROM revocation_lists WHERE error IS NOT NULL GROUP BY error',
    );
    for (const failure of failures.rows) process.stdout.write(`  ${failure.n} CRLs failed: ${failure.error}\n`);
    process.stdout.write(
      `\ncheck-revocation over ${ROWS} certificates sharing ${CRLS} CRLs of ${CRL_ENTRIES} entries\n` +
        `  ${result.outcome}, ${JSON.stringify(result.counts)}, ${revoked.rows[0].n} revoked\n` +
        `  wall ${seconds.toFixed(1)} s (target <= 60)   API peak memory ${memory.peak.toFixed(0)} MB (target <= 250)\n`,
    );
    recordFigure({
      row: `check-revocation, ${ROWS} certificates and ${CRLS} CRLs of ${CRL_ENTRIES}`,
      measured: `${seconds.toFixed(1)} s, API peak ${memory.peak.toFixed(0)} MB`,
      target: '<= 60 s, <= 250 MB',
      met: seconds <= 60 && memory.peak <= 250 && failures.rows.length === 0,
    });
  } finally {
    await client.end();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main(): Promise<void> {
  await withSeededApi(
    'findings',
    ROWS,
    async (api, token, databaseUrl) => {
      await benchListFilter(api, token);
      await benchCheckRevocation(api, token, databaseUrl);
    },
    seedFindings,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
