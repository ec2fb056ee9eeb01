/**
 * The few pieces of RFC 5545 the calendar feed needs, written by hand: a general-purpose
 * generator spent about a millisecond per event, far too slow for feeds of thousands of events.
 */

const CRLF = '\r\n';
const MAX_LINE_OCTETS = 75;

// Anything escapeText would change: most values hold none of it, and skip the replacements.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPING = /[\\;,\u0000-\u001f\u007f]/;

/** A TEXT value (RFC 5545 section 3.3.11): backslash, semicolon and comma escaped, line breaks as `\n`. */
export function escapeText(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return value;
  return (
    value
      .replace(/[\\;,]/g, '\\$&')
      .replace(/\r\n|\r|\n/g, '\\n')
      // TEXT admits no other control characters; a certificate's subject may hold any.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
  );
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * Folds a content line into lines of at most 75 octets (section 3.1): each continuation starts
 * with one space, which counts towards its 75. Never splits a UTF-8 sequence.
 */
export function foldLine(line: string): string {
  // Fast path: 25 UTF-16 units are at most 75 octets.
  if (line.length <= MAX_LINE_OCTETS / 3) return line;
  const octets = Buffer.byteLength(line, 'utf8');
  if (octets <= MAX_LINE_OCTETS) return line;
  return octets === line.length ? foldAscii(line) : foldUtf8(line);
}

/** One octet per UTF-16 unit: plain slicing. */
function foldAscii(line: string): string {
  let folded = line.slice(0, MAX_LINE_OCTETS);
  for (let start = MAX_LINE_OCTETS; start < line.length; start += MAX_LINE_OCTETS - 1) {
    folded += `${CRLF} ${line.slice(start, start + MAX_LINE_OCTETS - 1)}`;
  }
  return folded;
}

/** Walks code points, so a fold never falls inside a UTF-8 sequence or a surrogate pair. */
function foldUtf8(line: string): string {
  let folded = '';
  let start = 0;
  let octets = 0;
  let limit = MAX_LINE_OCTETS;
  for (let index = 0; index < line.length;) {
    const codePoint = line.codePointAt(index)!;
    const units = codePoint > 0xffff ? 2 : 1;
    const length = utf8Length(codePoint);
    if (octets + length > limit) {
      folded += `${line.slice(start, index)}${CRLF} `;
      start = index;
      octets = 0;
      limit = MAX_LINE_OCTETS - 1;
    }
    octets += length;
    index += units;
  }
  return folded + line.slice(start);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** DATE value of the UTC calendar day of `date`: `YYYYMMDD`. */
export function formatDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}`;
}

/** DATE-TIME value in UTC: `YYYYMMDDTHHMMSSZ`. */
export function formatDateTime(date: Date): string {
  return `${formatDate(date)}T${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

// Lines are gathered into a string of about this many UTF-16 units, then encoded into the buffer.
const FLUSH_UNITS = 32 * 1024;

/**
 * Writes content lines, each folded and ended with CRLF, straight into UTF-8 bytes: for a feed of
 * megabytes this skips joining one large string and encoding it again, which halves the time.
 */
export class IcsWriter {
  private buffer: Buffer;
  private length = 0;
  private pending = '';

  /** `expectedBytes` sizes the first buffer; it grows as needed. */
  constructor(expectedBytes = 16 * 1024) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, expectedBytes));
  }

  /** A property whose value is already in its iCalendar form: dates, durations, keywords, escaped TEXT. */
  raw(nameAndParameters: string, value: string): this {
    return this.append(`${foldLine(`${nameAndParameters}:${value}`)}${CRLF}`);
  }

  /** A TEXT property, escaped. */
  text(name: string, value: string): this {
    return this.raw(name, escapeText(value));
  }

  begin(component: string): this {
    return this.append(`BEGIN:${component}${CRLF}`);
  }

  end(component: string): this {
    return this.append(`END:${component}${CRLF}`);
  }

  /** The iCalendar object as UTF-8; only the bytes written, never the spare capacity. */
  toBuffer(): Buffer {
    this.flush();
    return this.buffer.subarray(0, this.length);
  }

  toString(): string {
    return this.toBuffer().toString('utf8');
  }

  private append(text: string): this {
    this.pending += text;
    if (this.pending.length >= FLUSH_UNITS) this.flush();
    return this;
  }

  private flush(): void {
    // A UTF-16 unit never takes more than three UTF-8 bytes (a surrogate pair takes four for two).
    const needed = this.length + this.pending.length * 3;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(this.pending, this.length, 'utf8');
    this.pending = '';
  }
}
