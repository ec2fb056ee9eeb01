import { DataSource } from 'typeorm';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

/**
 * A page filtered by findings is found in one of three ways, by how many match against how many
 * endpoints there are (windowSearch in the endpoints repository): sorted from the matches, or by
 * walking the sort key's order and testing each endpoint against the matches hashed once, or by
 * looking up each one's findings. All must give the same pages, in the list's order, ties and
 * missing values included.
 */
describe('pages filtered by findings', () => {
  let t: TestApp;
  let admin: string;
  /** How each page's window was searched, read from its query. */
  const searches: ('sort' | 'hash' | 'probe')[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    const dataSource = t.app.get(DataSource);
    // Twelve endpoints, names that tie or differ by case, some scanned and with an expiry (equal values among them).
    await dataSource.query(
      `INSERT INTO endpoints (name, type, search_text, last_scanned_at, soonest_not_after)
       SELECT name, 'manual', lower(name),
              CASE WHEN n % 3 > 0 THEN now() - (n % 2) * interval '1 hour' END,
              CASE WHEN n % 4 > 0 THEN now() + (n % 3) * interval '1 day' END
         FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n)`,
      [['web-b', 'Web-a', 'web-b', 'web-b', 'a-web', 'web-10', 'web-9', 'web_x', 'WEB', 'my web', 'other', 'last']],
    );
    // Five show expired (one of them revoked too), one revoked only; the rest show none.
    await dataSource.query(
      `INSERT INTO endpoint_findings (endpoint_id, codes)
       SELECT id, CASE WHEN n <= 5 THEN CASE WHEN n = 1 THEN '{expired,revoked}'::text[] ELSE '{expired}' END
                       WHEN n = 6 THEN '{revoked}' ELSE '{}' END
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM endpoints) e`,
    );
    const query = dataSource.query.bind(dataSource);
    jest.spyOn(dataSource, 'query').mockImplementation((text: string, ...rest: unknown[]) => {
      const window = /FROM \(SELECT e\.id FROM endpoints e (.*) ORDER BY (.*) LIMIT/.exec(text);
      if (window) {
        const [, where, order] = window;
        const unindexedOrder = order.includes("|| ''") || order.includes("+ interval '0'");
        searches.push(unindexedOrder ? 'sort' : where.includes(') IS TRUE') ? 'hash' : 'probe');
      }
      return (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
    });
  });
  afterAll(() => t.close());

  /** The ids of every page of the list under `filter`, `limit` at a time, and its total. */
  const pages = async (filter: string, sort: string, limit: number) => {
    const ids: string[] = [];
    let total = 0;
    for (let offset = 0; offset < 12; offset += limit) {
      const body = (
        await t.http.get(`/api/v1/endpoints?${filter}&sort=${sort}&limit=${limit}&offset=${offset}`).set(bearer(admin)).expect(200)
      ).body as { items: { id: string }[]; totalCount: number };
      ids.push(...body.items.map((item) => item.id));
      total = body.totalCount;
    }
    return { ids, total };
  };

  it.each(['name', '-name', 'daysRemaining', '-daysRemaining', 'lastScannedAt', '-lastScannedAt', 'createdAt', '-createdAt'])(
    'pages the list sorted by %s alike whether the matches are sorted or the order walked, hashed or probed',
    async (sort) => {
      for (const [filter, matches] of [
        ['finding=expired', 5],
        ['finding=expired&finding=revoked', 6],
        ['has_findings=true', 6],
        ['has_findings=false', 6],
      ] as const) {
        searches.length = 0;
        // 1 a page: the first page probes (a walk of 12 / matches rows), the later ones hash the
        // matches as the walk grows; 100: one page, sorted.
        const walked = await pages(filter, sort, 1);
        const sorted = await pages(filter, sort, 100);
        expect(walked).toEqual(sorted);
        expect(sorted).toEqual({ ids: expect.any(Array), total: matches });
        expect(sorted.ids).toHaveLength(matches);
        // Endpoints showing no finding have no set of matches to hash: their walk probes.
        expect(new Set(searches)).toEqual(new Set(filter === 'has_findings=false' ? ['probe', 'sort'] : ['probe', 'hash', 'sort']));
      }
    },
  );
});
