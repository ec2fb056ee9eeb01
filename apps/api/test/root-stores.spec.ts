import { rootCertificates } from 'node:tls';
import { RootStoreSeeder } from '../src/modules/trust/root-store-seeder';
import { bearer, createTestApp, createUser, login } from './support/test-app';

interface StoreBody {
  id: string;
  name: string;
  anchorCount: number;
  updatedAt: string | null;
  source: string | null;
}

describe('root stores', () => {
  it('are the four programs, empty and never updated until filled', async () => {
    const t = await createTestApp();
    try {
      const viewer = await createUser(t, 'viewer');
      const stores = (await t.http.get('/api/v1/root-stores').set(bearer(viewer.token)).expect(200)).body as StoreBody[];
      expect(stores.map((s) => [s.id, s.anchorCount, s.updatedAt, s.source])).toEqual([
        ['mozilla', 0, null, null],
        ['apple', 0, null, null],
        ['microsoft', 0, null, null],
        ['chrome', 0, null, null],
      ]);
      const anchors = await t.http.get('/api/v1/root-stores/apple/anchors').set(bearer(viewer.token)).expect(200);
      expect([anchors.body, anchors.headers['x-total-count']]).toEqual([[], '0']);
      await t.http.get('/api/v1/root-stores/netscape/anchors').set(bearer(viewer.token)).expect(404);
    } finally {
      await t.close();
    }
  });

  it("seed the Mozilla store from Node's bundled roots on a fresh install, once", async () => {
    const t = await createTestApp({ seedRootStores: true });
    try {
      const admin = await login(t);
      const stores = (await t.http.get('/api/v1/root-stores').set(bearer(admin)).expect(200)).body as StoreBody[];
      const mozilla = stores.find((s) => s.id === 'mozilla')!;
      expect(mozilla.anchorCount).toBe(new Set(rootCertificates).size);
      expect(mozilla.source).toBe('node:bundled');
      expect(mozilla.updatedAt).not.toBeNull();
      expect(stores.filter((s) => s.id !== 'mozilla').map((s) => [s.anchorCount, s.updatedAt])).toEqual([
        [0, null],
        [0, null],
        [0, null],
      ]);
      const page = await t.http.get('/api/v1/root-stores/mozilla/anchors').query({ limit: 5 }).set(bearer(admin)).expect(200);
      expect(page.headers['x-total-count']).toBe(String(mozilla.anchorCount));
      expect((page.body as { isCa: boolean; selfSigned: boolean }[]).every((a) => a.isCa)).toBe(true);
      expect(await t.app.get(RootStoreSeeder).seedMozillaIfEmpty()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
