import { mintCertificate } from '@certkeeper/domain/testing';
import { DataSource } from 'typeorm';
import { substringSearchLimits } from '../src/database/like';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

/**
 * A name search's page is found in one of two ways, by how many match (searchSortKey in
 * database/like.ts): sorted from the matches, or by walking the name order. Both must give the
 * same pages, in the list's order, ties and missing names included.
 */
describe('substring search pages', () => {
  let t: TestApp;
  let admin: string;
  const saved = substringSearchLimits.sortMatchesUpTo;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    // Names that tie (same name, different id), differ only by case, or sort around the digits.
    await t.app.get(DataSource).query(
      `INSERT INTO endpoints (name, type, search_text)
       SELECT name, 'manual', lower(name) FROM unnest($1::text[]) AS name`,
      [['shop-b', 'Shop-a', 'shop-b', 'shop-b', 'a-shop', 'shop-10', 'shop-9', 'shop_x', 'SHOP', 'my shop', 'other']],
    );
    // Some scanned and some with an expiry, equal values among them, the others null: every order has ties and nulls.
    await t.app.get(DataSource).query(
      `UPDATE endpoints SET last_scanned_at = now() - (length(name) % 3) * interval '1 hour',
              soonest_not_after = now() + (length(name) % 4) * interval '1 day'
        WHERE name IN ('shop-b', 'Shop-a', 'shop-10', 'SHOP', 'my shop')`,
    );
    // Certificates matched by common name, by a SAN only (no common name: sorted last), or not at all.
    const subjects = [
      ['CN=shop.example', ['shop.example']],
      ['CN=Shop.example', ['www.shop.example']],
      ['CN=a-shop.example', []],
      ['O=Shop without a common name', ['shop-san-1.example']],
      ['O=Another without one', ['shop-san-2.example']],
      ['CN=shop.example', ['other.shop.example']],
      ['CN=elsewhere.example', ['elsewhere.example']],
    ] as const;
    for (const [subject, sans] of subjects) {
      const minted = await mintCertificate({ subject, sans: [...sans] });
      await t.http
        .post('/api/v1/certificates')
        .set(bearer(admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(minted.pem)
        .expect(201);
    }
  });
  afterEach(() => {
    substringSearchLimits.sortMatchesUpTo = saved;
  });
  afterAll(() => t.close());

  /** Every page of `path` for `q`, `limit` at a time, as [total, ...items' keys]. */
  const allPages = async (path: string, q: string, key: (item: Record<string, unknown>) => unknown, sort?: string) => {
    const pages: unknown[] = [];
    for (let offset = 0; offset < 12; offset += 3) {
      const query = { q, limit: 3, offset, ...(sort ? { sort } : {}) };
      const body = (await t.http.get(path).query(query).set(bearer(admin)).expect(200)).body as {
        items: Record<string, unknown>[];
        totalCount: number;
      };
      pages.push([body.totalCount, ...body.items.map(key)]);
    }
    return pages;
  };

  it('pages the endpoint list alike whether the matches are sorted or the name order walked', async () => {
    const key = (item: Record<string, unknown>) => `${String(item.name)} ${String(item.id)}`;
    substringSearchLimits.sortMatchesUpTo = 1_000;
    const sorted = await allPages('/api/v1/endpoints', 'shop', key);
    substringSearchLimits.sortMatchesUpTo = 0;
    const walked = await allPages('/api/v1/endpoints', 'shop', key);

    expect(sorted).toEqual(walked);
    expect((sorted[0] as unknown[])[0]).toBe(10);
    const names = sorted.flatMap((page) => (page as string[]).slice(1)).map((entry) => entry.split(' ')[0]);
    expect(names).toHaveLength(10);
    expect(names).not.toContain('other');
  });

  it.each(['-name', 'daysRemaining', '-daysRemaining', 'lastScannedAt', '-lastScannedAt', 'createdAt', '-createdAt'])(
    'pages the endpoint list sorted by %s alike whether the matches are sorted or the order walked',
    async (sort) => {
      const key = (item: Record<string, unknown>) => `${String(item.name)} ${String(item.id)}`;
      substringSearchLimits.sortMatchesUpTo = 1_000;
      const sorted = await allPages('/api/v1/endpoints', 'shop', key, sort);
      substringSearchLimits.sortMatchesUpTo = 0;
      const walked = await allPages('/api/v1/endpoints', 'shop', key, sort);
      expect(sorted).toEqual(walked);
      expect(sorted.flatMap((page) => (page as string[]).slice(1))).toHaveLength(10);
    },
  );

  it('pages /search alike whether the matches are sorted or the name order walked, certificates first', async () => {
    const key = (item: Record<string, unknown>) =>
      `${String(item.kind)} ${String(item.commonName ?? item.name)} ${String(item.fingerprint ?? item.id)}`;
    substringSearchLimits.sortMatchesUpTo = 1_000;
    const sorted = await allPages('/api/v1/search', 'shop', key);
    substringSearchLimits.sortMatchesUpTo = 0;
    const walked = await allPages('/api/v1/search', 'shop', key);

    expect(sorted).toEqual(walked);
    expect((sorted[0] as unknown[])[0]).toBe(6 + 10);
    const kinds = sorted.flatMap((page) => (page as string[]).slice(1)).map((entry) => entry.split(' ').slice(0, 2).join(' '));
    // The certificates first, the two without a common name last of them, then the endpoints.
    expect(kinds.slice(4, 6)).toEqual(['certificate undefined', 'certificate undefined']);
    expect(kinds.slice(6).every((kind) => kind.startsWith('endpoint '))).toBe(true);
  });
});
