import * as ical from 'node-ical';
import type { ExpiringCertificate } from '../expiry/expiry.repository';
import { ALARM_DAYS, REFRESH_INTERVAL, renderEvent, renderExpiryCalendar, writeFeed } from './expiry-calendar';

// Every feed is read back with node-ical, a real iCalendar parser, as a calendar client would read it.

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2026-11-21T12:34:56Z');
const text = (value: ical.ParameterValue | undefined) => (typeof value === 'object' ? value.val : (value ?? ''));

function parse(feed: Buffer): { calendar: ical.VCalendar | undefined; events: ical.VEvent[] } {
  const components = ical.sync.parseICS(feed.toString('utf8'));
  const events = Object.values(components).filter((component): component is ical.VEvent => component?.type === 'VEVENT');
  return { calendar: components.vcalendar, events };
}

const certificate = (fields: Partial<ExpiringCertificate> & Pick<ExpiringCertificate, 'fingerprint'>): ExpiringCertificate => ({
  commonName: 'service.example.com',
  notBefore: new Date(now.getTime() - 80 * DAY),
  notAfter: new Date(now.getTime() + 10 * DAY),
  endpoints: [{ id: 'e1', name: 'gateway', type: 'host' }],
  ...fields,
});

describe('renderExpiryCalendar', () => {
  it('writes the calendar properties a client reads: name, PRODID, method and the hourly refresh', () => {
    const feed = renderExpiryCalendar([], now);
    const { calendar, events } = parse(feed);
    expect(events).toEqual([]);
    expect(calendar).toMatchObject({
      version: '2.0',
      prodid: '-//Certkeeper//Certificate expiry feed//EN',
      calscale: 'GREGORIAN',
      method: 'PUBLISH',
      'WR-CALNAME': 'Certkeeper certificate expiry',
      'PUBLISHED-TTL': REFRESH_INTERVAL,
    });
    // The framing itself: CRLF after every line, the last one included.
    const body = feed.toString('utf8');
    expect(body).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(body).toMatch(/\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n/);
    expect(body).toMatch(/\r\nEND:VCALENDAR\r\n$/);
  });

  it('makes each certificate one all-day event on the UTC day of its notAfter, with four display alarms', () => {
    const lateInTheDay = certificate({
      fingerprint: 'a'.repeat(64),
      commonName: 'late.example.com',
      notAfter: new Date('2026-12-31T23:59:59Z'),
      endpoints: [
        { id: 'e1', name: 'alpha', type: 'manual' },
        { id: 'e2', name: 'beta', type: 'saml' },
      ],
    });
    const nameless = certificate({ fingerprint: 'b'.repeat(64), commonName: null, notAfter: new Date('2026-11-18T00:00:00Z') });
    const { events } = parse(renderExpiryCalendar([lateInTheDay, nameless], now));
    expect(events.map((event) => event.uid)).toEqual([lateInTheDay.fingerprint, nameless.fingerprint]);

    const [late, expired] = events;
    expect(late.datetype).toBe('date');
    expect(late.start.dateOnly).toBe(true);
    expect(late.start.toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(late.end?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(late.dtstamp.toISOString()).toBe(now.toISOString());
    expect(late.transparency).toBe('TRANSPARENT');
    expect(text(late.summary)).toBe('Certificate expiry: late.example.com (alpha, beta)');
    expect(text(late.description).split('\n')).toEqual([
      'Common name: late.example.com',
      'Expires: 2026-12-31T23:59:59Z',
      'Days remaining: 40',
      `SHA-256 fingerprint: ${lateInTheDay.fingerprint}`,
      'Endpoints (2):',
      '- alpha (manual)',
      '- beta (saml)',
    ]);
    expect(late.alarms?.map((alarm) => [alarm.action, alarm.trigger, alarm.description])).toEqual(
      ALARM_DAYS.map((days) => ['DISPLAY', `-P${days}D`, `Certificate late.example.com expires in ${days} ${days === 1 ? 'day' : 'days'}`]),
    );

    expect(expired.start.toISOString()).toBe('2026-11-18T00:00:00.000Z');
    expect(text(expired.summary)).toBe(`Certificate expiry: ${'b'.repeat(16)} (gateway)`);
    expect(text(expired.description)).toContain('Common name: (none)\nExpires: 2026-11-18T00:00:00Z\nDays remaining: -4\n');
  });

  it('escapes commas, semicolons, backslashes and line breaks and drops other control characters', () => {
    const awkward = certificate({
      fingerprint: 'c'.repeat(64),
      commonName: 'evil, inc; "x"\\y\nnext\r\nline\u0007\u0000\ttab',
      endpoints: [{ id: 'e1', name: 'edge\\gw; dmz, 1', type: 'host' }],
    });
    const feed = renderExpiryCalendar([awkward], now);
    const unfolded = feed.toString('utf8').replace(/\r\n[ \t]/g, '');
    expect(unfolded).toContain('\r\nSUMMARY:Certificate expiry: evil\\, inc\\; "x"\\\\y\\nnext\\nline\ttab (edge\\\\gw\\; dmz\\, 1)\r\n');

    const [event] = parse(feed).events;
    expect(text(event.summary)).toBe('Certificate expiry: evil, inc; "x"\\y\nnext\nline\ttab (edge\\gw; dmz, 1)');
    expect(text(event.description)).toContain('Common name: evil, inc; "x"\\y\nnext\nline\ttab\n');
    expect(text(event.description)).toContain('- edge\\gw; dmz, 1 (host)');
    expect(event.alarms?.[0].description).toBe('Certificate evil, inc; "x"\\y\nnext\nline\ttab expires in 30 days');
  });

  it('folds long and multi-byte lines within 75 octets without breaking a character, and the parser rejoins them', () => {
    const name = `${'é€😀a'.repeat(25)}-${'x'.repeat(100)}`;
    const wide = certificate({
      fingerprint: 'd'.repeat(64),
      commonName: 'ünïcödé.example.com',
      endpoints: Array.from({ length: 30 }, (_, index) => ({ id: `e${index}`, name: `${name}-${index}`, type: 'manual' as const })),
    });
    const feed = renderExpiryCalendar([wide], now);
    const body = feed.toString('utf8');
    expect(Buffer.from(body, 'utf8').equals(feed)).toBe(true); // valid UTF-8 throughout
    expect(body).not.toMatch(/[^\r]\n|\r[^\n]/); // CRLF only
    const lines = body.split('\r\n');
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);

    const [event] = parse(feed).events;
    expect(text(event.summary)).toBe(
      `Certificate expiry: ünïcödé.example.com (${wide.endpoints.map((endpoint) => endpoint.name).join(', ')})`,
    );
    for (const endpoint of wide.endpoints) expect(text(event.description)).toContain(`- ${endpoint.name} (manual)`);
  });

  it('stamps a kept event with the time the feed is served, byte for byte as if rendered then', () => {
    const multiByte = certificate({
      fingerprint: 'e'.repeat(64),
      commonName: 'ünïcödé, 😀.example.com',
      notAfter: new Date(now.getTime() + 10 * DAY + 5 * 60 * 60 * 1000),
    });
    const plain = certificate({ fingerprint: 'f'.repeat(64), notAfter: multiByte.notAfter });
    const later = new Date(now.getTime() + 3 * 60 * 60 * 1000 + 7000);
    const served = writeFeed([renderEvent(multiByte, now), renderEvent(plain, now)], later);
    expect(served.equals(renderExpiryCalendar([multiByte, plain], later))).toBe(true);
    const { events } = parse(served);
    expect(events.map((event) => event.dtstamp.toISOString())).toEqual([later.toISOString(), later.toISOString()]);
  });
});
