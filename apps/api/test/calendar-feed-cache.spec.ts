import { createHash, randomBytes } from 'node:crypto';
import * as ical from 'node-ical';
import { Client } from 'pg';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DatabaseNotifications } from '../src/database/notifications';
import { ExpiryRepository } from '../src/modules/expiry/expiry.repository';
import { eventually } from './support/eventually';
import { DAY, HOUR } from './support/fake-clock';
import { databaseUrl } from './support/test-database';
import { bearer, createTestApp, createUser, login, type TestApp } from './support/test-app';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const text = (value: ical.ParameterValue | undefined) => (typeof value === 'object' ? value.val : (value ?? ''));

interface FeedEvent {
  uid: string;
  summary: string;
  description: string;
  dtstamp: string;
}

function parseFeed(body: string): FeedEvent[] {
  return Object.values(ical.sync.parseICS(body))
    .filter((component): component is ical.VEvent => component?.type === 'VEVENT')
    .map((event) => ({
      uid: event.uid,
      summary: text(event.summary),
      description: text(event.description),
      dtstamp: event.dtstamp.toISOString(),
    }));
}

/**
 * The calendar feed is served from what CalendarFeedCache keeps (docs/performance.md, "Calendar
 * feeds"): each case shows a kept feed follows every kind of write that changes it, made through
 * the API (at once), behind its back on another connection, or on another replica (as soon as the
 * notification arrives), and the passing of time, and that the kept rows are really used.
 */
describe('calendar feeds kept until a write changes them', () => {
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  /** Each replica signs its own tokens (its own JWT secret). */
  let adminOfB: string;
  let other: Client;
  let expiryQueries: number;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({}, a);
    // Whole seconds, as certificates store them; both replicas read the same time.
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    a.clock.set(start);
    b.clock.set(start);
    admin = await login(a);
    adminOfB = await login(b);
    other = new Client({ connectionString: databaseUrl(a.databaseName) });
    await other.connect();
    for (const app of [a, b])
      await eventually(
        () => app.app.get(DatabaseNotifications).listening,
        (listening) => listening,
      );
    for (const app of [a, b]) {
      const expiry = app.app.get(ExpiryRepository);
      const find = expiry.findCurrentExpiringBefore.bind(expiry);
      jest.spyOn(expiry, 'findCurrentExpiringBefore').mockImplementation((...args) => {
        expiryQueries += 1;
        return find(...args);
      });
    }
  });

  afterAll(async () => {
    await other.end();
    await b.close();
    await a.close();
  });

  beforeEach(() => {
    expiryQueries = 0;
  });

  const uniqueTag = () => `cache:${randomBytes(4).toString('hex')}`;

  const createEndpoint = async (name: string, tags: string[]) =>
    ((await a.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name, type: 'manual', tags }).expect(201)).body as { id: string })
      .id;

  const attach = async (app: TestApp, endpointId: string, minted: MintedCertificate, replace = false) => {
    const response = await app.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .query({ replace: String(replace) })
      .set(bearer(app === b ? adminOfB : admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
    expect([200, 201]).toContain(response.status);
  };

  const mint = async (expiresIn: number, commonName = `${randomBytes(4).toString('hex')}.cache.test`) => {
    const notAfter = new Date(a.clock.now().getTime() + expiresIn);
    const minted = await mintCertificate({ subject: `CN=${commonName}`, notBefore: new Date(notAfter.getTime() - 400 * DAY), notAfter });
    return { minted, fingerprint: sha256(minted.der) };
  };

  /** A user subscribed to `tags`, with a feed; `feed(app)` reads it from either replica. */
  const subscriber = async (tags: string[]) => {
    const user = await createUser(a, 'viewer');
    await a.http.put('/api/v1/me/tag-subscriptions').set(bearer(user.token)).send(tags).expect(200);
    const { url } = (await a.http.post('/api/v1/me/calendar-token').set(bearer(user.token)).expect(200)).body as { url: string };
    const path = new URL(url).pathname;
    return {
      user,
      path,
      feed: async (app: TestApp = a) => parseFeed((await app.http.get(path).expect(200)).text),
    };
  };

  /** A feed once `done` accepts it, or after 3 s: a notification takes milliseconds, not a request. */
  const eventuallyFeed = async (read: () => Promise<FeedEvent[]>, done: (events: FeedEvent[]) => boolean) => {
    const events = await eventually(read, done);
    expect(done(events)).toBe(true);
    return events;
  };

  it('reads the certificates once, then serves every request from what it kept', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`kept ${tag}`, [tag]);
    const { minted, fingerprint } = await mint(20 * DAY);
    await attach(a, endpoint, minted);
    const { feed } = await subscriber([tag]);
    expiryQueries = 0;

    expect((await feed()).map((event) => event.uid)).toEqual([fingerprint]);
    expect(await feed()).toEqual(await feed());
    expect(expiryQueries).toBe(1);

    // What every scan writes (the last scan, a re-sighting) changes no feed and keeps it.
    await other.query(`UPDATE endpoints SET last_scanned_at = now(), last_scan_error = 'x' WHERE id = $1`, [endpoint]);
    await other.query(`UPDATE endpoint_certificates SET last_seen_at = now() WHERE endpoint_id = $1`, [endpoint]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await feed();
    expect(expiryQueries).toBe(1);
  });

  it('follows a new certificate link and a link moved to history, through the API at once', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`links ${tag}`, [tag]);
    const first = await mint(30 * DAY);
    await attach(a, endpoint, first.minted);
    const { feed } = await subscriber([tag]);
    expect((await feed()).map((event) => event.uid)).toEqual([first.fingerprint]);

    const second = await mint(40 * DAY);
    await attach(a, endpoint, second.minted);
    expect((await feed()).map((event) => event.uid)).toEqual([first.fingerprint, second.fingerprint]);

    const third = await mint(50 * DAY);
    await attach(a, endpoint, third.minted, true);
    expect((await feed()).map((event) => event.uid)).toEqual([third.fingerprint]);
  });

  it('follows a link, a rename, a change of tags and a deletion made on another connection', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`behind ${tag}`, [tag]);
    const first = await mint(10 * DAY, 'behind.cache.test');
    await attach(a, endpoint, first.minted);
    const { feed } = await subscriber([tag]);
    expect((await feed()).map((event) => event.summary)).toEqual([`Certificate expiry: behind.cache.test (behind ${tag})`]);

    // A link moved to history and a link made current, as another replica's ingest would.
    const second = await mint(12 * DAY);
    await attach(b, endpoint, second.minted);
    await eventuallyFeed(feed, (events) => events.length === 2);
    await other.query(`UPDATE endpoint_certificates SET is_current = false WHERE fingerprint = $1`, [second.fingerprint]);
    await eventuallyFeed(feed, (events) => events.length === 1);

    await other.query(`UPDATE endpoints SET name = $2 WHERE id = $1`, [endpoint, `renamed ${tag}`]);
    await eventuallyFeed(feed, (events) => events[0]?.summary === `Certificate expiry: behind.cache.test (renamed ${tag})`);

    await other.query(`UPDATE endpoints SET tags = '{}' WHERE id = $1`, [endpoint]);
    await eventuallyFeed(feed, (events) => events.length === 0);
    await other.query(`UPDATE endpoints SET tags = $2 WHERE id = $1`, [endpoint, [tag]]);
    await eventuallyFeed(feed, (events) => events.length === 1);

    await other.query(`DELETE FROM endpoints WHERE id = $1`, [endpoint]);
    await eventuallyFeed(feed, (events) => events.length === 0);
  });

  it('follows a rename and a deletion through the API at once', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`api ${tag}`, [tag]);
    const { minted } = await mint(15 * DAY, 'api.cache.test');
    await attach(a, endpoint, minted);
    const { feed } = await subscriber([tag]);
    expect((await feed())[0].summary).toBe(`Certificate expiry: api.cache.test (api ${tag})`);

    await a.http
      .patch(`/api/v1/endpoints/${endpoint}`)
      .set(bearer(admin))
      .send({ name: `api renamed ${tag}` })
      .expect(200);
    expect((await feed())[0].summary).toBe(`Certificate expiry: api.cache.test (api renamed ${tag})`);

    await a.http.delete(`/api/v1/endpoints/${endpoint}`).set(bearer(admin)).expect(204);
    expect(await feed()).toEqual([]);
  });

  it('follows the owner: changed tag subscriptions, a rotated token, a disabled user', async () => {
    const [x, y] = [uniqueTag(), uniqueTag()];
    const onX = await mint(5 * DAY);
    const onY = await mint(6 * DAY);
    await attach(a, await createEndpoint(`x ${x}`, [x]), onX.minted);
    await attach(a, await createEndpoint(`y ${y}`, [y]), onY.minted);
    const { user, path, feed } = await subscriber([x]);
    expect((await feed(b)).map((event) => event.uid)).toEqual([onX.fingerprint]);

    await a.http.put('/api/v1/me/tag-subscriptions').set(bearer(user.token)).send([y]).expect(200);
    expect((await feed(b)).map((event) => event.uid)).toEqual([onY.fingerprint]);

    await a.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ disabled: true }).expect(200);
    await b.http.get(path).expect(404);
    await a.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ disabled: false }).expect(200);
    await b.http.get(path).expect(200);

    const fresh = await login(a, user.email, user.password);
    await a.http.post('/api/v1/me/calendar-token').set(bearer(fresh)).expect(200);
    await b.http.get(path).expect(404);
  });

  it('follows a write on the other replica as soon as its notification arrives', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`replica ${tag}`, [tag]);
    const { feed } = await subscriber([tag]);
    expect(await feed(b)).toEqual([]);
    expect(await feed(a)).toEqual([]);

    const { minted, fingerprint } = await mint(25 * DAY);
    await attach(a, endpoint, minted);
    const events = await eventuallyFeed(
      () => feed(b),
      (read) => read.length === 1,
    );
    expect(events[0].uid).toBe(fingerprint);

    await b.http
      .patch(`/api/v1/endpoints/${endpoint}`)
      .set(bearer(adminOfB))
      .send({ name: `replica renamed ${tag}` })
      .expect(200);
    await eventuallyFeed(
      () => feed(a),
      (read) => read[0]?.summary.endsWith(`(replica renamed ${tag})`) ?? false,
    );
  });

  it('follows the clock: days remaining, the stamp and the window move without a write', async () => {
    const tag = uniqueTag();
    const endpoint = await createEndpoint(`clock ${tag}`, [tag]);
    const near = await mint(3 * DAY + HOUR);
    const far = await mint(365 * DAY + 12 * HOUR);
    await attach(a, endpoint, near.minted);
    await attach(a, endpoint, far.minted);
    const { feed } = await subscriber([tag]);
    const before = await feed();
    expect(before.map((event) => event.uid)).toEqual([near.fingerprint]);
    expect(before[0].description).toContain('Days remaining: 3\n');
    expect(before[0].dtstamp).toBe(a.clock.now().toISOString());

    a.clock.advance(2 * HOUR);
    const later = await feed();
    expect(later[0].description).toContain('Days remaining: 2\n');
    expect(later[0].dtstamp).toBe(a.clock.now().toISOString());

    a.clock.advance(DAY);
    expect((await feed()).map((event) => event.uid)).toEqual([near.fingerprint, far.fingerprint]);
    // Rows are read a day past the window, and read again once that day has passed.
    expiryQueries = 0;
    await feed();
    expect(expiryQueries).toBe(0);
    a.clock.advance(DAY + 1000);
    expect((await feed()).map((event) => event.uid)).toEqual([near.fingerprint, far.fingerprint]);
    expect(expiryQueries).toBe(1);
  });
});
