import { mintCertificate } from '@certkeeper/domain/testing';
import { DAY, HOUR } from './support/fake-clock';
import { bearer, createSignedInTestApp, createUser, manualEndpointWith, type TestApp } from './support/test-app';

interface Lifetimes {
  certificates: number;
  lifetimes: { days: number; certificates: number }[];
}

/*
 * GET /certificates/lifetimes (docs/api-contract.md section 15): the lifetimes of the current,
 * unexpired certificates in the caller's scope, most common first, that the thresholds screen
 * turns into worked examples of the alert policy.
 */
describe('GET /certificates/lifetimes', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  const lifetimes = async (token: string, query: Record<string, string> = {}): Promise<Lifetimes> =>
    (await t.http.get('/api/v1/certificates/lifetimes').query(query).set(bearer(token)).expect(200)).body as Lifetimes;

  /** A certificate of `lifetime` days, issued `age` days ago, at whole seconds as certificates store them. */
  async function pemOf(name: string, lifetime: number, age = 1): Promise<string> {
    const notBefore = new Date(Math.floor((t.clock.now().getTime() - age * DAY) / 1000) * 1000);
    const minted = await mintCertificate({ subject: `CN=${name}`, notBefore, notAfter: new Date(notBefore.getTime() + lifetime * DAY) });
    return minted.pem;
  }

  let named = 0;
  const onEndpoint = async (pem: string, tags: string[] = []) => {
    named += 1;
    return manualEndpointWith(t, admin, `lifetimes-${named}`, pem, tags);
  };

  it('answers no lifetimes for an inventory with no certificate in use', async () => {
    expect(await lifetimes(admin)).toEqual({ certificates: 0, lifetimes: [] });
  });

  it('counts each current, unexpired certificate once by its lifetime in whole days, most common first', async () => {
    for (let n = 0; n < 3; n += 1) await onEndpoint(await pemOf(`ninety-${n}`, 90 - 1 / 86_400));
    // ACME's six-day profile lasts 160 hours: 6.67 days, nearest 7.
    for (let n = 0; n < 3; n += 1) await onEndpoint(await pemOf(`short-${n}`, 160 / 24));
    await onEndpoint(await pemOf('year', 398));
    // On two endpoints: one certificate.
    const shared = await pemOf('shared', 47);
    await onEndpoint(shared);
    await onEndpoint(shared);
    // Expired, and no longer current (replaced on its endpoint): neither counts.
    await onEndpoint(await pemOf('expired', 30, 31));
    const replacedOn = await onEndpoint(await pemOf('replaced', 200));
    await t.http
      .post(`/api/v1/endpoints/${replacedOn}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(await pemOf('replacement', 365))
      .expect(201);

    expect(await lifetimes(admin)).toEqual({
      certificates: 9,
      lifetimes: [
        { days: 7, certificates: 3 },
        { days: 90, certificates: 3 },
        { days: 47, certificates: 1 },
        { days: 365, certificates: 1 },
        { days: 398, certificates: 1 },
      ],
    });
    expect(await lifetimes(admin, { limit: '2' })).toEqual({
      certificates: 9,
      lifetimes: [
        { days: 7, certificates: 3 },
        { days: 90, certificates: 3 },
      ],
    });
  });

  it('rounds a lifetime under half a day up to one day', async () => {
    await onEndpoint(await pemOf('hours', 6 / 24, 0.1));
    expect((await lifetimes(admin, { limit: '20' })).lifetimes).toContainEqual({ days: 1, certificates: 1 });
  });

  it("scopes to the endpoints sharing a tag with the caller's subscriptions; scope=all ignores them", async () => {
    const viewer = await createUser(t, 'viewer');
    await onEndpoint(await pemOf('team-a', 30), ['team:lifetimes-a']);
    await onEndpoint(await pemOf('team-b', 31), ['team:lifetimes-b']);
    const everything = await lifetimes(admin, { limit: '20' });
    expect(await lifetimes(viewer.token, { limit: '20' })).toEqual(everything);

    await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send(['team:lifetimes-a']).expect(200);
    expect(await lifetimes(viewer.token)).toEqual({ certificates: 1, lifetimes: [{ days: 30, certificates: 1 }] });
    expect(await lifetimes(viewer.token, { scope: 'subscribed' })).toEqual({ certificates: 1, lifetimes: [{ days: 30, certificates: 1 }] });
    expect(await lifetimes(viewer.token, { scope: 'all', limit: '20' })).toEqual(everything);
  });

  it('counts by the clock: a certificate that has expired since leaves the counts', async () => {
    await onEndpoint(await pemOf('ending', 3, 3 - 2 / 24));
    const before = await lifetimes(admin, { limit: '20' });
    expect(before.lifetimes).toContainEqual({ days: 3, certificates: 1 });
    t.clock.advance(3 * HOUR);
    try {
      const after = await lifetimes(admin, { limit: '20' });
      expect(after.certificates).toBe(before.certificates - 1);
      expect(after.lifetimes.find((bucket) => bucket.days === 3)).toBeUndefined();
    } finally {
      t.clock.advance(-3 * HOUR);
    }
  });

  it.each([
    [{ limit: '0' }, 'limit must not be less than 1'],
    [{ limit: '21' }, 'limit must not be greater than 20'],
    [{ limit: '1.5' }, 'limit must be an integer number'],
    [{ scope: 'mine' }, 'scope must be subscribed or all'],
    [{ days: '7' }, 'property days should not exist'],
  ])('refuses %j with 400 "%s"', async (query, sentence) => {
    const response = await t.http.get('/api/v1/certificates/lifetimes').query(query).set(bearer(admin)).expect(400);
    expect(response.type).toBe('text/plain');
    expect(response.text).toContain(sentence);
  });

  it('needs a signed-in caller', async () => {
    await t.http.get('/api/v1/certificates/lifetimes').expect(401);
  });
});
