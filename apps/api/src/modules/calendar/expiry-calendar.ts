import { addDays, daysRemaining } from '@certkeeper/domain';
import { foldLines, ICalAlarmType, ICalCalendar, ICalCalendarMethod, ICalEvent, ICalEventTransparency } from 'ical-generator';
import type { ExpiringCertificate } from '../expiry/expiry.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Calendar clients are asked to poll hourly (RFC 7986 REFRESH-INTERVAL and the older X-PUBLISHED-TTL). */
export const REFRESH_INTERVAL = 'PT1H';
const REFRESH_INTERVAL_SECONDS = 3600;

/** Fixed reminders, in days before the expiry day (docs/api-contract.md section 6). */
export const ALARM_DAYS = [30, 14, 7, 1] as const;

/** How far ahead the feed looks; expired certificates still current somewhere stay in it. */
export const FEED_WINDOW_DAYS = 365;

/** The end of the feed's window at `now`: certificates expiring before it are in the feed. */
export function feedWindowEnd(now: Date): Date {
  return addDays(now, FEED_WINDOW_DAYS);
}

const CALENDAR_NAME = 'Certkeeper certificate expiry';

// ical-generator escapes TEXT (backslash, semicolon, comma, line breaks) but keeps other control
// characters, which TEXT does not admit and a certificate's subject may hold.
// eslint-disable-next-line no-control-regex
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const plainText = (value: string) => value.replace(NOT_TEXT, '');

// The calendar without events, cut where the events go. The name and description are constants
// with nothing to escape.
const CALENDAR = new ICalCalendar({
  prodId: '//Certkeeper//Certificate expiry feed//EN',
  scale: 'GREGORIAN',
  method: ICalCalendarMethod.PUBLISH,
  name: CALENDAR_NAME,
  description: 'Expiry dates of the certificates Certkeeper tracks for you.',
  ttl: REFRESH_INTERVAL_SECONDS,
});
const CALENDAR_END = 'END:VCALENDAR';
const FEED_HEAD = Buffer.from(CALENDAR.toString().slice(0, -CALENDAR_END.length), 'utf8');
// ical-generator leaves the last line without its CRLF; RFC 5545 ends every content line with one.
const FEED_TAIL = Buffer.from(`${CALENDAR_END}\r\n`, 'utf8');

/** An event as iCalendar bytes, with where its DTSTAMP value sits so a kept event can be stamped again. */
export interface RenderedEvent {
  bytes: Buffer;
  stampAt: number;
  /** The days remaining its description states; the event is rendered again once that changes. */
  daysRemaining: number;
}

// DTSTAMP's value (a UTC DATE-TIME) is always 16 octets, so its line is never folded.
const STAMP_LINE = '\r\nDTSTAMP:';

/** DTSTAMP's value for `now`, as ical-generator writes it. */
function stampOf(now: Date): string {
  return `${now.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** ISO 8601 in UTC, without the milliseconds certificates never have. */
function timestampWithoutMilliseconds(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * One certificate as an all-day event on the UTC day of its notAfter, with the fingerprint as UID
 * (stable across refreshes, so clients update events instead of duplicating them) and four
 * display alarms; ical-generator escapes and folds it.
 */
export function renderEvent(certificate: ExpiringCertificate, now: Date): RenderedEvent {
  const { fingerprint, notAfter, endpoints } = certificate;
  const day = new Date(Date.UTC(notAfter.getUTCFullYear(), notAfter.getUTCMonth(), notAfter.getUTCDate()));
  // SUMMARY names the certificate by its common name, else by the start of its fingerprint.
  const commonName = certificate.commonName ? plainText(certificate.commonName) : null;
  const label = commonName ?? fingerprint.slice(0, 16);
  const names = endpoints.map((endpoint) => plainText(endpoint.name));
  const remaining = daysRemaining(notAfter, now);
  const event = new ICalEvent(
    {
      id: fingerprint,
      stamp: now,
      allDay: true,
      start: day,
      end: addDays(day, 1),
      summary: `Certificate expiry: ${label} (${names.join(', ')})`,
      description: [
        `Common name: ${commonName ?? '(none)'}`,
        `Expires: ${timestampWithoutMilliseconds(notAfter)}`,
        `Days remaining: ${remaining}`,
        `SHA-256 fingerprint: ${fingerprint}`,
        `Endpoints (${endpoints.length}):`,
        ...endpoints.map((endpoint, index) => `- ${names[index]} (${endpoint.type})`),
      ].join('\n'),
      transparency: ICalEventTransparency.TRANSPARENT,
      alarms: ALARM_DAYS.map((days) => ({
        type: ICalAlarmType.display,
        triggerBefore: days * (DAY_MS / 1000),
        description: `Certificate ${label} expires in ${days} ${days === 1 ? 'day' : 'days'}`,
      })),
    },
    CALENDAR,
  );
  const text = foldLines(event.toString());
  const stampLine = text.indexOf(STAMP_LINE);
  const stampAt = Buffer.byteLength(text.slice(0, stampLine + STAMP_LINE.length), 'utf8');
  return { bytes: Buffer.from(text, 'utf8'), stampAt, daysRemaining: remaining };
}

/** The whole feed as UTF-8 bytes, ready to send: the events in order, each stamped `now`. */
export function writeFeed(events: readonly RenderedEvent[], now: Date): Buffer {
  let length = FEED_HEAD.length + FEED_TAIL.length;
  for (const event of events) length += event.bytes.length;
  const feed = Buffer.allocUnsafe(length);
  const stamp = Buffer.from(stampOf(now), 'latin1');
  let offset = FEED_HEAD.copy(feed, 0);
  for (const event of events) {
    event.bytes.copy(feed, offset);
    stamp.copy(feed, offset + event.stampAt);
    offset += event.bytes.length;
  }
  FEED_TAIL.copy(feed, offset);
  return feed;
}

/** The personal feed of `certificates` rendered afresh (CalendarFeedCache keeps what it can). */
export function renderExpiryCalendar(certificates: readonly ExpiringCertificate[], now: Date): Buffer {
  return writeFeed(
    certificates.map((certificate) => renderEvent(certificate, now)),
    now,
  );
}
