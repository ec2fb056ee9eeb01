import { randomUUID } from 'node:crypto';
import { PresentedChainComplete1796200000000 } from '../src/database/migrations/1796200000000-PresentedChainComplete';
import { databaseBeforeMigration } from './support/migration-database';

describe('the presented chain completeness migration', () => {
  const database = databaseBeforeMigration('presented_chain_migration', PresentedChainComplete1796200000000);

  it("takes each host's completeness from its latest successful scan, so no finding changes on upgrade", async () => {
    const [completed, broke, unscanned] = await database.use(async (before) => {
      const endpoint = async (name: string) =>
        (
          await before.query<{ id: string }[]>(
            `INSERT INTO endpoints (name, type, dns_name, port) VALUES ($1, 'host', $1, 443) RETURNING id`,
            [name],
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
      const ids = [await endpoint('completed.example'), await endpoint('broke.example'), await endpoint('unscanned.example')];
      await scan(ids[0], '2026-05-01T00:00:00Z', true, false);
      await scan(ids[0], '2026-05-02T00:00:00Z', true, true);
      await scan(ids[0], '2026-05-03T00:00:00Z', false, null);
      await scan(ids[1], '2026-05-01T00:00:00Z', true, true);
      await scan(ids[1], '2026-05-02T00:00:00Z', true, false);
      await before.query(`INSERT INTO endpoint_findings (endpoint_id, presented_chain) SELECT unnest($1::uuid[]), '{aa}'`, [ids]);
      return ids;
    });

    await database.upgrade(async (after, applied) => {
      expect(applied[0]).toBe('PresentedChainComplete1796200000000');
      const rows = await after.query<{ endpointId: string; complete: boolean | null }[]>(
        `SELECT endpoint_id AS "endpointId", presented_chain_complete AS complete FROM endpoint_findings`,
      );
      expect(Object.fromEntries(rows.map((row) => [row.endpointId, row.complete]))).toEqual({
        [completed]: true,
        [broke]: false,
        [unscanned]: null,
      });
    });
  });
});
