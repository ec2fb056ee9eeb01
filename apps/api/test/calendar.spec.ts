import { createHash, randomBytes } from 'node:crypto';
import * as ical from 'node-ical';
import { DataSource } from 'typeorm';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DAY, HOUR } from './support/fake-clock';
import { bearer, createScanner, createTestApp, createUser, login, type TestApp } from './support/test-app';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const FEED_PATH = /^\/api\/v1\/calendar\/u\/([A-Za-z0-9_-]{43,})\/certkeeper\.ics$/;

interface TokenResponse {
  token: string;
  url: string;
}

/** A UTC calendar day as iCalendar writes it. */
const ymd = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '');
const unfold = (text: string) => text.replace(/\r\n[ \t]/g, '');
const text = (value: ical.ParameterValue | undefined) => (typeof value === 'object' ? value.val : (value ?? ''));

function events(body: string): ical.VEvent[] {
  return Object.values(ical.sync.parseICS(body)).filter((component): component is ical.VEvent => component?.type === 'VEVENT');
}

/** The raw, unfolded content lines of each VEVENT, keyed by UID. */
function rawEvents(body: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const block of unfold(body).split('BEGIN:VEVENT\r\n').slice(1)) {
    const lines = block.split('END:VEVENT')[0].split('\r\n');
    blocks.set(lines.find((line) => line.startsWith('UID:'))!.slice('UID:'.length), lines);
  }
  return blocks;
}

describe('calendar feed', () => {
  let t: TestApp;
  let admin: string;
  let sql: DataSource;
  let now: Date;

  beforeAll(async () => {
    t = await createTestApp();
    // Whole seconds, as certificates store them, so days remaining are exact.
    t.clock.set(new Date(Math.floor(Date.now() / 1000) * 1000));
    now = t.clock.now();
    admin = await login(t);
    sql = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A tag no other test uses, so each test scopes its feed to its own certificates. */
  const uniqueTag = (label: string) => `cal-${label}:${randomBytes(4).toString('hex')}`;

  const createEndpoint = async (name: string, tags: string[], type: 'manual' | 'host' = 'manual') => {
    const body = type === 'host' ? { name, type, tags, dnsName: `${randomBytes(4).toString('hex')}.calendar.test` } : { name, type, tags };
    return ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
  };

  /** Uploads to the endpoint; by default keeping its other current certificates (replace=false). */
  const attach = async (endpointId: string, minted: MintedCertificate, replace = false) => {
    const response = await t.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .query({ replace: String(replace) })
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
    expect([200, 201]).toContain(response.status);
  };

  /** A certificate expiring at now + `offset`, current on the given endpoints. */
  const certificateOn = async (endpointIds: string[], offset: number, subject = `CN=${randomBytes(4).toString('hex')}.calendar.test`) => {
    const notAfter = new Date(now.getTime() + offset);
    const minted = await mintCertificate({
      subject,
      notBefore: new Date(Math.min(now.getTime(), notAfter.getTime()) - 30 * DAY),
      notAfter,
    });
    for (const id of endpointIds) await attach(id, minted);
    return { minted, fingerprint: sha256(minted.der), notAfter };
  };

  /** A user whose tag subscriptions are `tags` (set directly: subscriptions have their own API elsewhere). */
  const subscriber = async (tags: string[], fields: { notify?: boolean } = {}) => {
    const user = await createUser(t, 'viewer', fields);
    await sql.query('UPDATE users SET tag_subscriptions = $2 WHERE id = $1', [user.id, tags]);
    return user;
  };

  const createToken = async (userToken: string) =>
    (await t.http.post('/api/v1/me/calendar-token').set(bearer(userToken)).expect(200)).body as TokenResponse;

  const feedPath = (url: string) => new URL(url).pathname;

  describe('POST /me/calendar-token', () => {
    it('returns a token and the absolute feed URL from the Host header, and the URL serves the feed', async () => {
      const user = await subscriber([uniqueTag('empty')]);
      const response = await t.http
        .post('/api/v1/me/calendar-token')
        .set(bearer(user.token))
        .set('Host', 'certs.internal:8443')
        .expect(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const { token, url } = response.body as TokenResponse;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
      expect(url).toBe(`http://certs.internal:8443/api/v1/calendar/u/${token}/certkeeper.ics`);
      expect(feedPath(url)).toMatch(FEED_PATH);

      const feed = await t.http.get(feedPath(url)).expect(200);
      expect(feed.headers['content-type']).toBe('text/calendar; charset=utf-8');
      expect(feed.headers['x-published-ttl']).toBe('PT1H');
      expect(feed.headers['cache-control']).toBe('private, max-age=300');
      expect(feed.text).toMatch(/^BEGIN:VCALENDAR\r\n/);
      expect(feed.text).toMatch(/\r\nEND:VCALENDAR\r\n$/);
      expect(feed.text).toContain('\r\nX-PUBLISHED-TTL:PT1H\r\n');
      expect(feed.text).toContain('\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n');
      expect(ical.sync.parseICS(feed.text).vcalendar).toMatchObject({
        version: '2.0',
        prodid: '-//Certkeeper//Certificate expiry feed//EN',
        method: 'PUBLISH',
        'WR-CALNAME': 'Certkeeper certificate expiry',
        'PUBLISHED-TTL': 'PT1H',
      });
      expect(events(feed.text)).toEqual([]);

      const me = await t.http.get('/api/v1/me').set(bearer(user.token)).expect(200);
      expect((me.body as { calendarFeedEnabled: boolean }).calendarFeedEnabled).toBe(true);
    });

    it('builds the URL from the request protocol and Host when PUBLIC_URL is not set', async () => {
      const user = await createUser(t, 'viewer');
      const { token, url } = await createToken(user.token);
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/calendar/u/${token}/certkeeper\\.ics$`));
    });

    it('builds the URL from PUBLIC_URL when set, whatever the Host header says', async () => {
      const other = await createTestApp({ publicUrl: 'https://certs.example.com' });
      try {
        const user = await createUser(other, 'viewer');
        const response = await other.http
          .post('/api/v1/me/calendar-token')
          .set(bearer(user.token))
          .set('Host', 'evil.example.net')
          .expect(200);
        const { token, url } = response.body as TokenResponse;
        expect(url).toBe(`https://certs.example.com/api/v1/calendar/u/${token}/certkeeper.ics`);
        await other.http.get(feedPath(url)).expect(200);
      } finally {
        await other.close();
      }
    });

    it('rotates: every call returns a new token and the previous URL answers 404', async () => {
      const user = await createUser(t, 'viewer');
      const first = await createToken(user.token);
      await t.http.get(feedPath(first.url)).expect(200);
      const second = await createToken(user.token);
      expect(second.token).not.toBe(first.token);
      const gone = await t.http.get(feedPath(first.url)).expect(404);
      expect(gone.headers['content-type']).toMatch(/^text\/plain/);
      await t.http.get(feedPath(second.url)).expect(200);
    });

    it('refuses with 400 a Host header it cannot put in a URL, leaving the current token working', async () => {
      const user = await createUser(t, 'viewer');
      const { url } = await createToken(user.token);
      const response = await t.http.post('/api/v1/me/calendar-token').set(bearer(user.token)).set('Host', 'evil.example/x?y').expect(400);
      expect(response.text).toContain('PUBLIC_URL');
      await t.http.get(feedPath(url)).expect(200);
    });

    it('stores only a SHA-256 of the token, never the token itself', async () => {
      const user = await createUser(t, 'viewer');
      const { token } = await createToken(user.token);
      const rows = await sql.query<Record<string, unknown>[]>('SELECT * FROM users WHERE id = $1', [user.id]);
      expect(rows[0].calendar_token_hash).toBe(createHash('sha256').update(token).digest('hex'));
      const everything = await sql.query<Record<string, unknown>[]>('SELECT * FROM users');
      expect(JSON.stringify(everything)).not.toContain(token);
    });

    it('answers 401 without a token and 403 to a scanner token', async () => {
      await t.http.post('/api/v1/me/calendar-token').expect(401);
      const scanner = await createScanner(t);
      await t.http.post('/api/v1/me/calendar-token').set(bearer(scanner.token)).expect(403);
    });
  });

  describe('GET /calendar/u/{token}/*', () => {
    it('accepts any file name after the token, nested or none', async () => {
      const user = await createUser(t, 'viewer');
      const { token } = await createToken(user.token);
      for (const suffix of ['/certkeeper.ics', '/feed.ics', '/a/b.ics', '/anything', '']) {
        const response = await t.http.get(`/api/v1/calendar/u/${token}${suffix}`).expect(200);
        expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
        expect(response.text).toMatch(/^BEGIN:VCALENDAR\r\n/);
      }
    });

    it('answers 404 for an unknown token, with or without a file name', async () => {
      const unknown = randomBytes(32).toString('base64url');
      await t.http.get(`/api/v1/calendar/u/${unknown}/certkeeper.ics`).expect(404);
      await t.http.get(`/api/v1/calendar/u/${unknown}`).expect(404);
    });

    it('answers 404 once the token is cleared through PUT /me', async () => {
      const user = await createUser(t, 'viewer');
      const { url } = await createToken(user.token);
      await t.http.get(feedPath(url)).expect(200);
      const me = await t.http.put('/api/v1/me').set(bearer(user.token)).send({ calendarToken: null }).expect(200);
      expect((me.body as { calendarFeedEnabled: boolean }).calendarFeedEnabled).toBe(false);
      await t.http.get(feedPath(url)).expect(404);
    });

    it("answers 404 for a disabled user's feed, and serves it again once re-enabled", async () => {
      const user = await createUser(t, 'viewer');
      const { url } = await createToken(user.token);
      await t.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ disabled: true }).expect(200);
      await t.http.get(feedPath(url)).expect(404);
      await t.http.put(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ disabled: false }).expect(200);
      await t.http.get(feedPath(url)).expect(200);
    });

    it('does not depend on the notify flag', async () => {
      const tag = uniqueTag('notify');
      const endpoint = await createEndpoint(`notify-${tag}`, [tag]);
      const certificate = await certificateOn([endpoint], 20 * DAY);
      const user = await subscriber([tag], { notify: false });
      const { url } = await createToken(user.token);
      const feed = await t.http.get(feedPath(url)).expect(200);
      expect(events(feed.text).map((event) => event.uid)).toEqual([certificate.fingerprint]);
    });

    it('never writes the token to the logs', async () => {
      const user = await createUser(t, 'viewer');
      const { token, url } = await createToken(user.token);
      await t.http.get(feedPath(url)).expect(200);
      await t.http.get(`/api/v1/calendar/u/${token}x/feed.ics`).expect(404);
      expect(JSON.stringify(t.logs)).not.toContain(token);
    });
  });

  describe('content', () => {
    it('has one all-day event per certificate with UID, dates, summary, description and four alarms', async () => {
      const tag = uniqueTag('content');
      const single = await createEndpoint(`single ${tag}`, [tag]);
      const alpha = await createEndpoint(`alpha ${tag}`, [tag]);
      const beta = await createEndpoint(`beta ${tag}`, [tag], 'host');
      const soon = await certificateOn([single], 10 * DAY + HOUR, 'CN=soon.calendar.test');
      const shared = await certificateOn([alpha, beta], 45 * DAY + 2 * HOUR, 'CN=shared.calendar.test');
      const nameless = await certificateOn([single], 100 * DAY, 'O=Nameless Org');
      const expired = await certificateOn([single], -3 * DAY + HOUR, 'CN=expired.calendar.test');
      const lastDay = await certificateOn([single], 364 * DAY, 'CN=late.calendar.test');
      const tooFar = await certificateOn([single], 400 * DAY, 'CN=far.calendar.test');
      // Replaced on its endpoint, so no longer current anywhere: not in the feed.
      const rotating = await createEndpoint(`rotating ${tag}`, [tag]);
      const replaced = await certificateOn([rotating], 50 * DAY, 'CN=replaced.calendar.test');
      const successor = await certificateOn([], 60 * DAY, 'CN=successor.calendar.test');
      await attach(rotating, successor.minted, true);

      const user = await subscriber([tag]);
      const { url } = await createToken(user.token);
      const feed = await t.http.get(feedPath(url)).expect(200);
      const parsed = events(feed.text);
      const raw = rawEvents(feed.text);

      const uids = parsed.map((event) => event.uid);
      expect(new Set(uids).size).toBe(uids.length);
      expect(uids.sort()).toEqual(
        [soon, shared, nameless, expired, lastDay, successor].map((certificate) => certificate.fingerprint).sort(),
      );
      expect(uids).not.toContain(tooFar.fingerprint);
      expect(uids).not.toContain(replaced.fingerprint);

      for (const event of parsed) {
        const certificate = [soon, shared, nameless, expired, lastDay, successor].find((c) => c.fingerprint === event.uid)!;
        const lines = raw.get(event.uid)!;
        const day = new Date(
          Date.UTC(certificate.notAfter.getUTCFullYear(), certificate.notAfter.getUTCMonth(), certificate.notAfter.getUTCDate()),
        );
        expect(lines).toContain(`DTSTART;VALUE=DATE:${ymd(day)}`);
        expect(lines).toContain(`DTEND;VALUE=DATE:${ymd(new Date(day.getTime() + DAY))}`);
        expect(event.datetype).toBe('date');
        expect(event.start.dateOnly).toBe(true);
        expect(event.start.toISOString()).toBe(day.toISOString());
        expect(event.end?.toISOString()).toBe(new Date(day.getTime() + DAY).toISOString());
        expect(event.dtstamp.toISOString()).toBe(now.toISOString());
        expect(event.transparency).toBe('TRANSPARENT');
        expect(event.alarms).toHaveLength(4);
        expect(event.alarms!.map((alarm) => alarm.trigger)).toEqual(['-P30D', '-P14D', '-P7D', '-P1D']);
        expect(event.alarms!.every((alarm) => alarm.action === 'DISPLAY' && (alarm.description ?? '').length > 0)).toBe(true);
        expect(text(event.description)).toContain(`SHA-256 fingerprint: ${certificate.fingerprint}`);
        expect(text(event.description)).toContain(`Expires: ${certificate.notAfter.toISOString().replace('.000Z', 'Z')}`);
      }

      const byUid = new Map(parsed.map((event) => [event.uid, event]));
      const soonEvent = byUid.get(soon.fingerprint)!;
      expect(text(soonEvent.summary)).toBe(`Certificate expiry: soon.calendar.test (single ${tag})`);
      expect(text(soonEvent.description)).toContain('Common name: soon.calendar.test');
      expect(text(soonEvent.description)).toContain(`single ${tag} (manual)`);
      expect(text(soonEvent.description)).toContain('Days remaining: 10');
      expect(soonEvent.alarms!.map((alarm) => alarm.description)).toEqual([
        'Certificate soon.calendar.test expires in 30 days',
        'Certificate soon.calendar.test expires in 14 days',
        'Certificate soon.calendar.test expires in 7 days',
        'Certificate soon.calendar.test expires in 1 day',
      ]);

      expect(text(byUid.get(successor.fingerprint)!.summary)).toBe(`Certificate expiry: successor.calendar.test (rotating ${tag})`);
      const sharedEvent = byUid.get(shared.fingerprint)!;
      expect(text(sharedEvent.summary)).toBe(`Certificate expiry: shared.calendar.test (alpha ${tag}, beta ${tag})`);
      expect(text(sharedEvent.description)).toContain(`alpha ${tag} (manual)`);
      expect(text(sharedEvent.description)).toContain(`beta ${tag} (host)`);
      expect(text(sharedEvent.description)).toContain('Days remaining: 45');

      expect(text(byUid.get(nameless.fingerprint)!.summary)).toBe(
        `Certificate expiry: ${nameless.fingerprint.slice(0, 16)} (single ${tag})`,
      );
      expect(text(byUid.get(expired.fingerprint)!.description)).toContain('Days remaining: -3');
      expect(text(byUid.get(lastDay.fingerprint)!.description)).toContain('Days remaining: 364');
    });

    it('makes a certificate current on two endpoints one event naming both', async () => {
      const tag = uniqueTag('shared');
      const first = await createEndpoint(`first ${tag}`, [tag]);
      const second = await createEndpoint(`second ${tag}`, [tag], 'host');
      const certificate = await certificateOn([first, second], 12 * DAY, 'CN=twice.calendar.test');
      const user = await subscriber([tag]);
      const { url } = await createToken(user.token);
      const parsed = events((await t.http.get(feedPath(url)).expect(200)).text);
      expect(parsed).toHaveLength(1);
      expect(parsed[0].uid).toBe(certificate.fingerprint);
      expect(text(parsed[0].summary)).toBe(`Certificate expiry: twice.calendar.test (first ${tag}, second ${tag})`);
      const description = text(parsed[0].description);
      expect(description).toContain(`first ${tag} (manual)`);
      expect(description).toContain(`second ${tag} (host)`);
    });

    it('is scoped by tag subscriptions; none means every endpoint', async () => {
      const [x, y, z] = [uniqueTag('x'), uniqueTag('y'), uniqueTag('z')];
      const onX = await certificateOn([await createEndpoint(`x ${x}`, [x])], 5 * DAY);
      const onY = await certificateOn([await createEndpoint(`y ${y}`, [y, 'other'])], 6 * DAY);
      const onZ = await certificateOn([await createEndpoint(`z ${z}`, [z])], 7 * DAY);

      const scoped = await subscriber([x, y]);
      const scopedFeed = events((await t.http.get(feedPath((await createToken(scoped.token)).url)).expect(200)).text);
      expect(scopedFeed.map((event) => event.uid).sort()).toEqual([onX.fingerprint, onY.fingerprint].sort());

      const everyone = await createUser(t, 'viewer');
      const fullFeed = events((await t.http.get(feedPath((await createToken(everyone.token)).url)).expect(200)).text);
      expect(fullFeed.map((event) => event.uid)).toEqual(expect.arrayContaining([onX.fingerprint, onY.fingerprint, onZ.fingerprint]));
      const current = await sql.query<{ n: number }[]>(
        `SELECT count(DISTINCT fingerprint)::int AS n FROM endpoint_certificates WHERE is_current AND not_after < $1`,
        [new Date(now.getTime() + 365 * DAY)],
      );
      expect(fullFeed).toHaveLength(current[0].n);
    });

    it('escapes commas, semicolons, newlines and backslashes (RFC 5545)', async () => {
      const tag = uniqueTag('escape');
      const endpoint = await createEndpoint(`edge\\gw; dmz, ${tag}`, [tag]);
      const certificate = await certificateOn([endpoint], 8 * DAY, 'CN=evil\\, inc\\; \\"x\\"\\0Anext');
      const user = await subscriber([tag]);
      const { url } = await createToken(user.token);
      const feed = await t.http.get(feedPath(url)).expect(200);
      const lines = rawEvents(feed.text).get(certificate.fingerprint)!;
      const escapedTag = tag.replace(/[\\;,]/g, '\\$&');
      expect(lines).toContain(`SUMMARY:Certificate expiry: evil\\, inc\\; "x"\\nnext (edge\\\\gw\\; dmz\\, ${escapedTag})`);
      expect(lines.find((line) => line.startsWith('DESCRIPTION:'))).toContain('Common name: evil\\, inc\\; "x"\\nnext\\n');
      // Every physical line stays within 75 octets.
      for (const line of feed.text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);

      const [event] = events(feed.text);
      expect(text(event.summary)).toBe(`Certificate expiry: evil, inc; "x"\nnext (edge\\gw; dmz, ${tag})`);
      expect(text(event.description)).toContain('Common name: evil, inc; "x"\nnext\n');
    });
  });
});
