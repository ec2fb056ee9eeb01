import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { forEachRow, inOneSnapshot, poolOf } from '../src/database/pool';
import { eventually } from './support/eventually';
import { createTestApp, type TestApp } from './support/test-app';

/** forEachRow and inOneSnapshot: the large reads of database/pool.ts, on a real PostgreSQL. */
describe('forEachRow', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let pool: Pool;
  const checkedOut = () => pool.totalCount - pool.idleCount;

  beforeAll(async () => {
    t = await createTestApp();
    dataSource = t.app.get(DataSource);
    pool = poolOf(dataSource);
  });
  afterAll(() => t.close());

  it('hands over every row in order, parsed as DataSource.query parses them, and gives the connection back', async () => {
    const text = `SELECT g AS n, 'row ' || g AS label, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 day' AS at, ARRAY['a', g::text] AS tags
                    FROM generate_series(1, $1::int) AS g ORDER BY g`;
    const rows: unknown[] = [];
    await forEachRow(dataSource, { text, values: [700] }, (row) => {
      rows.push(row);
    });

    expect(rows).toEqual(await dataSource.query(text, [700]));
    expect(rows).toHaveLength(700);
    expect(rows[699]).toEqual({ n: 700, label: 'row 700', at: new Date('2027-12-02T00:00:00.000Z'), tags: ['a', '700'] });
    expect(checkedOut()).toBe(0);
  });

  it('fails with the error of a row callback once the statement is over, and skips the rows after it', async () => {
    const seen: number[] = [];
    const read = forEachRow<{ n: number }>(
      dataSource,
      { text: 'SELECT g AS n FROM generate_series(1, 50) AS g ORDER BY g', values: [] },
      (row) => {
        seen.push(row.n);
        if (row.n === 3) throw new TypeError('mapping failed at row 3');
      },
    );

    await expect(read).rejects.toThrow('mapping failed at row 3');
    expect(seen).toEqual([1, 2, 3]);
    expect(checkedOut()).toBe(0);
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it("fails with the driver's error when the statement fails part-way", async () => {
    const seen: number[] = [];
    // Division by zero at the fourth row, after the first rows have been sent.
    const text = 'SELECT 10 / (4 - g) AS n FROM generate_series(1, 6) AS g';
    await expect(
      forEachRow<{ n: number }>(dataSource, { text, values: [] }, (row) => {
        seen.push(row.n);
      }),
    ).rejects.toMatchObject({
      code: '22012',
    });
    expect(seen).toEqual([3, 5, 10]);
    expect(checkedOut()).toBe(0);
  });

  it('fails, without taking the process down, when the connection is cut under the read', async () => {
    const read = forEachRow(dataSource, { text: "SELECT pg_sleep(30), 'never' AS label", values: [] }, () => undefined);
    const backend = await eventually(
      () =>
        dataSource.query<{ pid: number }[]>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()`,
        ),
      (found) => found.length === 1,
    );
    expect(backend).toHaveLength(1);
    await dataSource.query('SELECT pg_terminate_backend($1)', [backend[0].pid]);

    await expect(read).rejects.toMatchObject({ code: '57P01' });
    expect(checkedOut()).toBe(0);
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // About 40 MB of rows: far more than the socket buffers between PostgreSQL and the API hold.
  const MANY_ROWS = { text: "SELECT g AS n, repeat('x', 200) AS pad FROM generate_series(1, 200000) AS g", values: [] };

  it('reads nothing more while the wait a row handler answered is pending, then the rest, and gives the connection back', async () => {
    let release!: () => void;
    const full = new Promise<void>((resolve) => (release = resolve));
    let received = 0;
    const read = forEachRow<{ n: number }>(dataSource, MANY_ROWS, (row) => {
      received += 1;
      return row.n === 1 ? full : undefined;
    });

    await eventually(
      () => received,
      (count) => count > 0,
    );
    await sleep(300);
    const whilePaused = received;
    await sleep(300);
    expect(received).toBe(whilePaused);
    expect(whilePaused).toBeLessThan(20_000);

    release();
    await read;
    expect(received).toBe(200_000);
    expect(checkedOut()).toBe(0);
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('fails with the rejection of a wait, skipping the rows after it, and gives the connection back', async () => {
    let received = 0;
    const read = forEachRow<{ n: number }>(dataSource, MANY_ROWS, (row) => {
      received += 1;
      return row.n === 1 ? sleep(50).then(() => Promise.reject(new Error('the client went away'))) : undefined;
    });

    await expect(read).rejects.toThrow('the client went away');
    expect(received).toBeLessThan(20_000);
    expect(checkedOut()).toBe(0);
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  describe('inOneSnapshot', () => {
    beforeAll(() => dataSource.query('CREATE TABLE snapshot_probe (n int)'));
    afterAll(() => dataSource.query('DROP TABLE snapshot_probe'));

    const countProbes = { text: 'SELECT count(*)::int AS n FROM snapshot_probe', values: [] };
    const transactionsOpen = async () =>
      (
        await dataSource.query<{ open: number }[]>(
          `SELECT count(*)::int AS open FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        )
      )[0].open;

    it('reads every query from the moment of the first, whatever commits meanwhile, then ends its transaction', async () => {
      const counts: number[] = [];
      const answer = await inOneSnapshot(dataSource, async (read) => {
        await read<{ n: number }>(countProbes, (row) => {
          counts.push(row.n);
        });
        await dataSource.query('INSERT INTO snapshot_probe VALUES (1)'); // another connection commits
        await read<{ n: number }>(countProbes, (row) => {
          counts.push(row.n);
        });
        return 'read';
      });

      expect(answer).toBe('read');
      expect(counts).toEqual([0, 0]);
      expect(await dataSource.query('SELECT count(*)::int AS n FROM snapshot_probe')).toEqual([{ n: 1 }]);
      expect(checkedOut()).toBe(0);
      expect(await transactionsOpen()).toBe(0);
    });

    it("fails with the reading's error, and leaves no transaction or connection behind", async () => {
      const reading = inOneSnapshot(dataSource, async (read) => {
        await read(countProbes, () => undefined);
        throw new Error('the reading failed');
      });

      await expect(reading).rejects.toThrow('the reading failed');
      expect(checkedOut()).toBe(0);
      expect(await transactionsOpen()).toBe(0);
    });
  });
});
