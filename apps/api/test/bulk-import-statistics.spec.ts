import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { UPKEEP_MIN_ROWS, UPKEEP_TABLE_FRACTION } from '../src/database/table-upkeep';
import { eventually } from './support/eventually';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';
import { databaseUrl } from './support/test-database';

interface TableState {
  rows: number;
  reltuples: number;
  relpages: number;
  relallvisible: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
  analysedAt: Date | null;
}

/**
 * Large writes leave the endpoints table's planner statistics and visibility map current, not
 * only after autovacuum's next visit (docs/performance.md, "After large writes"): what the list
 * is planned with right after an import, however it was split into requests.
 */
describe('statistics after a bulk import', () => {
  let t: TestApp;
  let admin: string;
  let sql: DataSource;
  let imported = 0;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  const importRows = async (count: number) => {
    const rows = Array.from({ length: count }, (_, i) => ({
      name: `imported ${imported + i}`,
      dnsName: `imported-${imported + i}.example.test`,
      tags: [`env:${['prod', 'test'][i % 2]}`],
    }));
    imported += count;
    const body = (await t.http.post('/api/v1/endpoints/bulk').set(bearer(admin)).send(rows).expect(200)).body as { created: number };
    expect(body.created).toBe(count);
  };

  // Read on a connection of the application's pool, each query its own snapshot of the statistics.
  const tableState = async (): Promise<TableState> => {
    const [state] = await sql.query<TableState[]>(
      `SELECT (SELECT count(*)::int FROM endpoints) AS rows, c.reltuples::float AS reltuples, c.relpages, c.relallvisible,
              pg_stat_get_mod_since_analyze(c.oid)::int AS "modifiedSinceAnalyze",
              pg_stat_get_ins_since_vacuum(c.oid)::int AS "insertedSinceVacuum",
              greatest(pg_stat_get_last_analyze_time(c.oid), pg_stat_get_last_autoanalyze_time(c.oid)) AS "analysedAt"
         FROM pg_class c WHERE c.oid = 'endpoints'::regclass`,
    );
    return state;
  };

  it("reports a small import's rows at once, and leaves the table to autovacuum", async () => {
    await importRows(10);
    const state = await tableState();
    expect(state.analysedAt).toBeNull();
    expect(state.insertedSinceVacuum).toBe(10);
  });

  it('analyses and vacuums the table before answering an import above the threshold', async () => {
    await importRows(3000);
    const state = await tableState();
    expect(state.reltuples).toBe(state.rows);
    expect(state.rows).toBe(3010);
    expect(state.analysedAt).not.toBeNull();
    expect(state.modifiedSinceAnalyze).toBe(0);
    expect(state.insertedSinceVacuum).toBe(0);
    // Every page all-visible: the list's deep pages are index-only scans without heap visits.
    expect(state.relallvisible).toBe(state.relpages);
  });

  it('keeps the statistics within the threshold across an import split into small requests', async () => {
    const behind: string[] = [];
    for (let request = 0; request < 30; request += 1) {
      await importRows(200);
      const state = await tableState();
      const allowed = UPKEEP_MIN_ROWS + UPKEEP_TABLE_FRACTION * state.reltuples;
      if (state.modifiedSinceAnalyze > allowed || state.insertedSinceVacuum > allowed) {
        behind.push(`after request ${request + 1}: ${JSON.stringify(state)}`);
      }
    }
    expect(behind).toEqual([]);
    const state = await tableState();
    expect(state.rows).toBe(9010);
    // 6,000 rows came in requests of 200: the table was analysed on the way, not left at 3,010.
    expect(state.reltuples).toBeGreaterThanOrEqual(state.rows / (1 + UPKEEP_TABLE_FRACTION) - UPKEEP_MIN_ROWS);
  });

  it('counts rows written elsewhere (another replica, psql) toward the threshold', async () => {
    const { reltuples, modifiedSinceAnalyze } = await tableState();
    const elsewhere = Math.ceil(UPKEEP_MIN_ROWS + UPKEEP_TABLE_FRACTION * reltuples);
    const other = new Client({ connectionString: databaseUrl(t.databaseName) });
    await other.connect();
    try {
      await other.query(
        `INSERT INTO endpoints (name, type, tags, search_text) SELECT 'elsewhere ' || i, 'manual', '{}', 'elsewhere ' || i FROM generate_series(1, $1) AS i`,
        [elsewhere],
      );
    } finally {
      await other.end(); // a closing connection reports its counts
    }
    const reported = await eventually(tableState, (state) => state.modifiedSinceAnalyze >= modifiedSinceAnalyze + elsewhere, 10_000);
    expect(reported.modifiedSinceAnalyze).toBeGreaterThanOrEqual(modifiedSinceAnalyze + elsewhere);

    await importRows(1); // below the threshold alone
    const state = await tableState();
    expect(state.modifiedSinceAnalyze).toBe(0);
    expect(state.reltuples).toBe(state.rows);
  });
});
