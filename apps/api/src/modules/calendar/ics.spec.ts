import { escapeText, foldLine, formatDate, formatDateTime, IcsWriter } from './ics';

const octets = (line: string) => Buffer.byteLength(line, 'utf8');
const unfold = (text: string) => text.replace(/\r\n[ \t]/g, '');

describe('ics', () => {
  it('escapes backslashes, semicolons, commas and line breaks, and drops other control characters', () => {
    expect(escapeText('a\\b;c,d\ne\r\nf\rg')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng');
    expect(escapeText('tab\tkept, bell\u0007 and nul\u0000 dropped')).toBe('tab\tkept\\, bell and nul dropped');
    expect(escapeText('"quotes" and : colons stay')).toBe('"quotes" and : colons stay');
  });

  it('leaves lines of at most 75 octets alone', () => {
    expect(foldLine('x'.repeat(75))).toBe('x'.repeat(75));
    expect(foldLine('é'.repeat(37))).toBe('é'.repeat(37)); // 74 octets
  });

  it('folds ASCII at 75 octets, continuations starting with a space', () => {
    const line = `DESCRIPTION:${'abcdefghij'.repeat(30)}`;
    const folded = foldLine(line);
    const parts = folded.split('\r\n');
    expect(parts.length).toBeGreaterThan(1);
    expect(octets(parts[0])).toBe(75);
    for (const part of parts.slice(1)) {
      expect(part.startsWith(' ')).toBe(true);
      expect(octets(part)).toBeLessThanOrEqual(75);
    }
    expect(unfold(folded)).toBe(line);
  });

  it('never splits a multi-byte UTF-8 character or a surrogate pair', () => {
    const line = `SUMMARY:${'é€😀a'.repeat(40)}`;
    const folded = foldLine(line);
    for (const part of folded.split('\r\n')) {
      expect(octets(part)).toBeLessThanOrEqual(75);
      expect(Buffer.from(part, 'utf8').toString('utf8')).toBe(part); // no lone surrogate, no broken sequence
      expect(part).not.toMatch(/[\uD800-\uDFFF]/u);
    }
    expect(unfold(folded)).toBe(line);
  });

  it('formats DATE and DATE-TIME values in UTC', () => {
    const date = new Date('2027-01-02T03:04:05.678Z');
    expect(formatDate(date)).toBe('20270102');
    expect(formatDateTime(date)).toBe('20270102T030405Z');
    expect(formatDate(new Date('2026-12-31T23:59:59Z'))).toBe('20261231');
  });

  it('writes CRLF-terminated content lines', () => {
    const text = new IcsWriter().begin('VCALENDAR').text('NAME', 'a, b').end('VCALENDAR').toString();
    expect(text).toBe('BEGIN:VCALENDAR\r\nNAME:a\\, b\r\nEND:VCALENDAR\r\n');
  });

  it('grows its buffer and keeps multi-byte characters intact across flushes', () => {
    const writer = new IcsWriter(1024);
    let expected = '';
    for (let i = 0; i < 5000; i += 1) {
      writer.text('SUMMARY', `é€😀 ${i}`);
      expected += `SUMMARY:é€😀 ${i}\r\n`;
    }
    const bytes = writer.toBuffer();
    expect(bytes.length).toBe(Buffer.byteLength(expected));
    expect(bytes.toString('utf8')).toBe(expected);
  });
});
