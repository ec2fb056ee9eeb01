import { digestDue, latestDigestSlot } from './notification-digest';

const at = (iso: string) => new Date(iso);

describe('daily digests', () => {
  it('take the slot of today once its hour has come, else yesterday’s', () => {
    expect(latestDigestSlot(8, at('2026-03-10T08:00:00Z'))).toEqual(at('2026-03-10T08:00:00Z'));
    expect(latestDigestSlot(8, at('2026-03-10T23:59:00Z'))).toEqual(at('2026-03-10T08:00:00Z'));
    expect(latestDigestSlot(8, at('2026-03-10T07:59:59Z'))).toEqual(at('2026-03-09T08:00:00Z'));
    expect(latestDigestSlot(0, at('2026-03-01T00:30:00Z'))).toEqual(at('2026-03-01T00:00:00Z'));
    expect(latestDigestSlot(23, at('2026-03-01T00:30:00Z'))).toEqual(at('2026-02-28T23:00:00Z'));
  });

  it('are due at the first run in or after the hour, once a day', () => {
    const sentYesterday = at('2026-03-09T08:05:00Z');
    expect(digestDue(8, sentYesterday, at('2026-03-10T07:00:00Z'))).toBe(false);
    expect(digestDue(8, sentYesterday, at('2026-03-10T08:00:00Z'))).toBe(true);
    expect(digestDue(8, sentYesterday, at('2026-03-10T15:00:00Z'))).toBe(true);
    expect(digestDue(8, at('2026-03-10T08:00:00Z'), at('2026-03-10T15:00:00Z'))).toBe(false);
  });

  it('catch up at the next run when the hour passed without one', () => {
    expect(digestDue(8, at('2026-03-08T08:00:00Z'), at('2026-03-10T03:00:00Z'))).toBe(true);
  });

  it('wait for the next slot after a channel was created', () => {
    expect(digestDue(8, at('2026-03-10T09:00:00Z'), at('2026-03-10T20:00:00Z'))).toBe(false);
    expect(digestDue(8, at('2026-03-10T09:00:00Z'), at('2026-03-11T08:00:00Z'))).toBe(true);
  });
});
