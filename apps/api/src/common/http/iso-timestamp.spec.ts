import { isoTimestamp } from './iso-timestamp';

describe('isoTimestamp', () => {
  it('writes what toISOString writes, at the edges of each field and of the years it formats itself', () => {
    const dates = [
      '1970-01-01T00:00:00.000Z',
      '1000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '2026-02-03T04:05:06.007Z',
      '2026-11-28T16:48:52.060Z',
      '2024-02-29T12:30:45.100Z',
    ].map((text) => new Date(text));
    for (const date of dates) expect(isoTimestamp(date)).toBe(date.toISOString());
  });

  it('writes what toISOString writes for dates spread over the years a certificate or a scan can carry', () => {
    for (let time = Date.UTC(1950, 0, 1); time < Date.UTC(2200, 0, 1); time += 86_400_000 * 7 + 3_723_456) {
      const date = new Date(time);
      expect(isoTimestamp(date)).toBe(date.toISOString());
    }
  });

  it('leaves the years toISOString writes in another form, and invalid dates, to it', () => {
    const early = new Date(Date.UTC(999, 11, 31, 23, 59, 59, 999));
    const late = new Date(Date.UTC(10000, 0, 1));
    expect(isoTimestamp(early)).toBe('0999-12-31T23:59:59.999Z');
    expect(isoTimestamp(late)).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
