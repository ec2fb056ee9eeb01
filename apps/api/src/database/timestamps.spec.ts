import { types } from 'pg';
import { parseTimestamptz } from './timestamps';

const pgParser: (text: string) => Date = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text');

describe('parseTimestamptz', () => {
  it.each([
    ['2026-11-24 09:31:03+00', '2026-11-24T09:31:03.000Z'],
    ['2026-11-24 09:31:03.5+00', '2026-11-24T09:31:03.500Z'],
    ['2026-11-24 09:31:03.12+00', '2026-11-24T09:31:03.120Z'],
    ['2026-11-24 09:31:03.123+00', '2026-11-24T09:31:03.123Z'],
    ['2026-11-24 09:31:03.123999+00', '2026-11-24T09:31:03.123Z'],
    ['2024-02-29 23:59:59.999+00', '2024-02-29T23:59:59.999Z'],
    ['9999-12-31 23:59:59+00', '9999-12-31T23:59:59.000Z'],
    ['1950-01-01 00:00:00+00', '1950-01-01T00:00:00.000Z'],
  ])('reads %s as UTC', (text, iso) => {
    expect(parseTimestamptz(text).toISOString()).toBe(iso);
  });

  it.each([
    ['another zone', '2026-11-24 10:31:03.123+01'],
    ['a zone with minutes', '2026-11-24 15:01:03+05:30'],
    ['a year before 1000', '0099-01-01 00:00:00+00'],
    ['a year after 9999', '10000-01-01 00:00:00+00'],
    ['BC', '2026-11-24 09:31:03+00 BC'],
  ])('leaves %s to pg', (_, text) => {
    expect(parseTimestamptz(text).getTime()).toBe(pgParser(text).getTime());
  });

  it('answers infinity as pg does', () => {
    expect(parseTimestamptz('infinity')).toEqual(pgParser('infinity'));
    expect(parseTimestamptz('-infinity')).toEqual(pgParser('-infinity'));
  });

  it('agrees with pg on every millisecond of a random sample', () => {
    for (let i = 0; i < 2000; i += 1) {
      const instant = new Date(Date.UTC(1970 + Math.floor(Math.random() * 100), 0, 1) + Math.floor(Math.random() * 365 * 86_400_000));
      const text = `${instant.toISOString().slice(0, 10)} ${instant.toISOString().slice(11, 23)}+00`;
      expect(parseTimestamptz(text).getTime()).toBe(instant.getTime());
    }
  });
});
