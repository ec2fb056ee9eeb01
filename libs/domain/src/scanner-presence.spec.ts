import { isScannerOnline } from './scanner-presence';

const now = new Date('2026-11-21T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('isScannerOnline', () => {
  it.each([
    // Every 5 minutes: twice the gap is 10 minutes, the floor.
    ['*/5 * * * *', 10 * MINUTE, true],
    ['*/5 * * * *', 10 * MINUTE + 1, false],
    // Every minute: the floor, not twice the gap, decides.
    ['* * * * *', 9 * MINUTE, true],
    ['* * * * *', 10 * MINUTE + 1, false],
    ['0 * * * *', 2 * HOUR, true],
    ['0 * * * *', 2 * HOUR + 1, false],
    ['0 2 * * *', 47 * HOUR, true],
    ['0 2 * * *', 2 * DAY + 1, false],
    ['0 3 * * SUN', 13 * DAY, true],
    ['0 3 * * SUN', 14 * DAY + 1, false],
    // A schedule that never runs sets no bound.
    ['0 0 31 2 *', 365 * DAY, true],
  ])('%s, last called in %i ms ago: online %s', (cron, sinceMs, online) => {
    expect(isScannerOnline(ago(sinceMs), cron, now)).toBe(online);
  });

  it('is offline for a scanner that never called in', () => {
    expect(isScannerOnline(null, '*/5 * * * *', now)).toBe(false);
  });
});
