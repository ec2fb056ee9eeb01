import { daysRemaining } from '@certkeeper/domain';
import type { ExpiringCertificate } from '../expiry/expiry.repository';
import { escapeText, formatDate, formatDateTime, IcsWriter } from './ics';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Calendar clients are asked to poll hourly (RFC 7986 REFRESH-INTERVAL and the older X-PUBLISHED-TTL). */
export const REFRESH_INTERVAL = 'PT1H';

/** Fixed reminders, in days before the expiry day (docs/api-contract.md section 6). */
export const ALARM_DAYS = [30, 14, 7, 1] as const;

/** How far ahead the feed looks; expired certificates still current somewhere stay in it. */
export const FEED_WINDOW_DAYS = 365;

const CALENDAR_NAME = 'Certkeeper certificate expiry';

// About what one event takes, to size the output buffer once.
const EXPECTED_EVENT_BYTES = 1100;

// An escaped line break inside a TEXT value, and an escaped ", " between endpoint names.
const TEXT_NEWLINE = '\\n';
const TEXT_LIST_SEPARATOR = '\\, ';

/** ISO 8601 in UTC, without the milliseconds certificates never have. */
function isoTimestamp(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * The personal feed: one all-day event per certificate on the UTC day of its notAfter, with the
 * fingerprint as UID (stable across refreshes, so clients update events instead of duplicating
 * them) and four display alarms.
 *
 * Each user-supplied piece (common name, endpoint names) is escaped once and the TEXT values are
 * assembled already escaped: a feed of 5,000 events has to render in a few tens of milliseconds.
 * Returns UTF-8 bytes, ready to send.
 */
export function renderExpiryCalendar(certificates: readonly ExpiringCertificate[], now: Date): Buffer {
  const ics = new IcsWriter(1024 + certificates.length * EXPECTED_EVENT_BYTES)
    .begin('VCALENDAR')
    .raw('VERSION', '2.0')
    .raw('PRODID', '-//Certkeeper//Certificate expiry feed//EN')
    .raw('CALSCALE', 'GREGORIAN')
    .raw('METHOD', 'PUBLISH')
    .text('NAME', CALENDAR_NAME)
    .text('X-WR-CALNAME', CALENDAR_NAME)
    .text('X-WR-CALDESC', 'Expiry dates of the certificates Certkeeper tracks for you.')
    .raw('REFRESH-INTERVAL;VALUE=DURATION', REFRESH_INTERVAL)
    .raw('X-PUBLISHED-TTL', REFRESH_INTERVAL);
  const stamp = formatDateTime(now);
  for (const certificate of certificates) {
    const { fingerprint, notAfter, endpoints } = certificate;
    const day = new Date(Date.UTC(notAfter.getUTCFullYear(), notAfter.getUTCMonth(), notAfter.getUTCDate()));
    // SUMMARY names the certificate by its common name, else by the start of its fingerprint.
    const commonName = certificate.commonName ? escapeText(certificate.commonName) : null;
    const label = commonName ?? fingerprint.slice(0, 16);
    const names = endpoints.map((endpoint) => escapeText(endpoint.name));
    const description = [
      `Common name: ${commonName ?? '(none)'}`,
      `Expires: ${isoTimestamp(notAfter)}`,
      `Days remaining: ${daysRemaining(notAfter, now)}`,
      `SHA-256 fingerprint: ${fingerprint}`,
      `Endpoints (${endpoints.length}):`,
      ...endpoints.map((endpoint, index) => `- ${names[index]} (${endpoint.type})`),
    ].join(TEXT_NEWLINE);
    ics
      .begin('VEVENT')
      .raw('UID', fingerprint)
      .raw('DTSTAMP', stamp)
      .raw('DTSTART;VALUE=DATE', formatDate(day))
      .raw('DTEND;VALUE=DATE', formatDate(new Date(day.getTime() + DAY_MS)))
      .raw('SUMMARY', `Certificate expiry: ${label} (${names.join(TEXT_LIST_SEPARATOR)})`)
      .raw('DESCRIPTION', description)
      .raw('TRANSP', 'TRANSPARENT');
    for (const days of ALARM_DAYS) {
      ics
        .begin('VALARM')
        .raw('ACTION', 'DISPLAY')
        .raw('TRIGGER', `-P${days}D`)
        .raw('DESCRIPTION', `Certificate ${label} expires in ${days} ${days === 1 ? 'day' : 'days'}`)
        .end('VALARM');
    }
    ics.end('VEVENT');
  }
  return ics.end('VCALENDAR').toBuffer();
}
