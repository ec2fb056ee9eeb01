import { addDays, daysRemaining, expiringWithinBefore, isExpired } from './expiry';

const now = new Date('2026-11-21T12:00:00Z');
const hours = (n: number) => new Date(now.getTime() + n * 3600_000);

describe('daysRemaining', () => {
  it.each([
    [hours(10), 0],
    [hours(24), 1],
    [hours(12 * 24 + 5), 12],
    [hours(-1 / 3600), -1],
    [hours(-24), -1],
    [hours(-25), -2],
    [now, 0],
  ])('is floor((notAfter - now) / 24h): %s gives %i', (notAfter, days) => {
    expect(daysRemaining(notAfter, now)).toBe(days);
  });
});

describe('isExpired', () => {
  it('is true from notAfter on', () => {
    expect(isExpired(hours(1 / 3600), now)).toBe(false);
    expect(isExpired(now, now)).toBe(true);
    expect(isExpired(hours(-1), now)).toBe(true);
  });
});

describe('expiringWithinBefore', () => {
  it.each([0, 1, 30])('is the first instant whose daysRemaining exceeds %i days', (days) => {
    const before = expiringWithinBefore(days, now);
    expect(daysRemaining(new Date(before.getTime() - 1), now)).toBe(days);
    expect(daysRemaining(before, now)).toBe(days + 1);
  });
});

describe('addDays', () => {
  it('moves by whole days of 24 h, backwards when negative', () => {
    expect(addDays(now, 365)).toEqual(hours(365 * 24));
    expect(addDays(now, -3)).toEqual(hours(-72));
  });
});
