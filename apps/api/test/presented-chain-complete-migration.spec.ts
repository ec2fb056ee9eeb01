import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { MIGRATIONS } from '../src/database/migrations';
import { PresentedChainComplete1796200000000 } from '../src/database/migrations/1796200000000-PresentedChainComplete';
import { databaseUrl, withAdminClient } from './support/test-database';

describe('the presented chain completeness migration', () => {
  const name = `presented_chain_migration_${Date.now()}`;
  const options = () => dataSourceOptions(databaseUrl(name));

  beforeAll(() => withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`)));
  afterAll(() => withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));

  it("takes each host's completeness from its latest successful scan, so no finding changes on upgrade", async () => {
    const before = await new DataSource({
      ...options(),
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(PresentedChainComplete1796200000000)),
    }).initialize();
    const endpoint = async (endpointName: string) =>
      (
        await before.query<{ id: string }[]>(
          `INSERT INTO endpoints (name, type, dns_name, port) VALUES ($1, 'host', $1, 443) RETURNING id`,
          [endpointName],
        )
      )[0].id;
    const scan = (endpointId: string, at: string, success: boolean, chainComplete: boolean | null) =>
      before.query(`INSERT INTO scan_history (result_id, endpoint_id, scanned_at, success, chain_complete) VALUES ($1, $2, $3, $4, $5)`, [
        randomUUID(),
        endpointId,
        at,
        success,
        chainComplete,
      ]);
    let completed: string;
    let broke: string;
    let unscanned: string;
    try {
      await before.runMigrations();
      [completed, broke, unscanned] = [
        await endpoint('completed.example'),
        await endpoint('broke.example'),
        await endpoint('unscanned.example'),
      ];
      await scan(completed, '2026-05-01T00:00:00Z', true, false);
      await scan(completed, '2026-05-02T00:00:00Z', true, true);
      await scan(completed, '2026-05-03T00:00:00Z', false, null);
      await scan(broke, '2026-05-01T00:00:00Z', true, true);
      await scan(broke, '2026-05-02T00:00:00Z', true, false);
      await before.query(`INSERT INTO endpoint_findings (endpoint_id, presented_chain) SELECT unnest($1::uuid[]), '{aa}'`, [
        [completed, broke, unscanned],
      ]);
    } finally {
      await before.destroy();
    }

    const after = await new DataSource(options()).initialize();
    try {
      const applied = await after.runMigrations();
      expect(applied[0]).toEqual(expect.objectContaining({ name: 'PresentedChainComplete1796200000000' }));
      const rows = await after.query<{ endpointId: string; complete: boolean | null }[]>(
        `SELECT endpoint_id AS "endpointId", presented_chain_complete AS complete FROM endpoint_findings`,
      );
      expect(Object.fromEntries(rows.map((row) => [row.endpointId, row.complete]))).toEqual({
        [completed]: true,
        [broke]: false,
        [unscanned]: null,
      });
    } finally {
      await after.destroy();
    }
  });
});
