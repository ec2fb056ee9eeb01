import { types } from 'pg';

const ZERO = 48;
const SPACE = 32;
const PLUS = 43;
const DOT = 46;

/** pg's own parser (postgres-date), for every text the fast path does not take. */
const parseAnyTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/**
 * `timestamptz` text as PostgreSQL sends it to a session whose TimeZone is UTC,
 * `YYYY-MM-DD HH:MM:SS[.ffffff]+00`, read digit by digit; anything else (another zone's offset,
 * `infinity`, BC or far years) goes to pg's own parser. pg's parser matches a regular expression
 * and converts each part with parseInt: a 500-row list carries 2,000 timestamps, and it was a
 * tenth of the API's CPU for such a page (docs/performance.md, "Reads"). Fractions beyond
 * milliseconds are truncated, as a Date holds milliseconds.
 */
export function parseTimestamptz(text: string): Date {
  const length = text.length;
  const utc =
    length >= 22 &&
    text.charCodeAt(10) === SPACE &&
    text.charCodeAt(length - 3) === PLUS &&
    text.charCodeAt(length - 2) === ZERO &&
    text.charCodeAt(length - 1) === ZERO &&
    (length === 22 || (text.charCodeAt(19) === DOT && length <= 29));
  if (!utc) return parseAnyTimestamptz(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  // The first three fraction digits, each missing one a zero: ".5" is 500 ms.
  let millisecond = 0;
  for (let index = 20; index < 23; index += 1) {
    millisecond = millisecond * 10 + (index < length - 3 ? digitAt(text, index) : 0);
  }
  // Date.UTC reads years 0 to 99 as 1900 to 1999; NaN marks a character that was not a digit.
  if (!(year >= 1000) || Number.isNaN(month + day + hour + minute + second + millisecond)) return parseAnyTimestamptz(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, millisecond));
}

function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let index = start; index < start + count; index += 1) value = value * 10 + digitAt(text, index);
  return value;
}

function digitAt(text: string, index: number): number {
  const digit = text.charCodeAt(index) - ZERO;
  return digit >= 0 && digit <= 9 ? digit : Number.NaN;
}

/** Makes every connection of this process read `timestamptz` with parseTimestamptz. */
export function readTimestampsQuickly(): void {
  types.setTypeParser(types.builtins.TIMESTAMPTZ, 'text', parseTimestamptz);
}
