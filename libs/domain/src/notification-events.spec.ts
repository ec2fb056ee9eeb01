import { dueEvents } from './notification-events';

const DAY_MS = 24 * 60 * 60 * 1000;
const now = new Date('2026-06-01T12:00:00Z');
const thresholds = [30, 14, 7, 1];
const expiringIn = (ms: number) => ({ fingerprint: 'f'.repeat(64), notAfter: new Date(now.getTime() + ms) });

describe('dueEvents', () => {
  it.each([
    ['31 days out', 31 * DAY_MS + 1, []],
    ['30 days out', 30 * DAY_MS + 1, [{ eventType: 'cert_expiring', bucket: 30 }]],
    ['12 days out', 12 * DAY_MS + 1, [{ eventType: 'cert_expiring', bucket: 14 }]],
    ['10 hours out', 10 * 60 * 60 * 1000, [{ eventType: 'cert_expiring', bucket: 1 }]],
    ['at its notAfter', 0, [{ eventType: 'cert_expired', bucket: 0 }]],
    ['a year after its notAfter', -365 * DAY_MS, [{ eventType: 'cert_expired', bucket: 0 }]],
  ])('a certificate %s calls for %j', (_label, ms, expected) => {
    expect(dueEvents(expiringIn(ms), { now, thresholds })).toEqual(expected);
  });

  it('never calls for both expiry events at once', () => {
    for (const ms of [-DAY_MS, -1, 0, 1, DAY_MS, 40 * DAY_MS])
      expect(dueEvents(expiringIn(ms), { now, thresholds }).length).toBeLessThanOrEqual(1);
  });
});

describe('cert_revoked', () => {
  const fingerprint = 'f'.repeat(64);
  const notAfter = new Date(now.getTime() + 200 * DAY_MS);
  const revokedAt = new Date('2026-05-30T08:30:00Z');

  it('is due once (bucket 0) for a certificate found revoked, with when and why', () => {
    const revocation = { status: 'revoked' as const, revokedAt, reason: 'keyCompromise' };
    expect(dueEvents({ fingerprint, notAfter, revocation }, { now, thresholds })).toEqual([
      { eventType: 'cert_revoked', bucket: 0, values: { RevokedAt: '2026-05-30 08:30 UTC', Reason: 'keyCompromise' } },
    ]);
  });

  it('is not due for a good or unknown status, nor without a check', () => {
    for (const status of ['good', 'unknown'] as const)
      expect(dueEvents({ fingerprint, notAfter, revocation: { status, revokedAt: null, reason: null } }, { now, thresholds })).toEqual([]);
    expect(dueEvents({ fingerprint, notAfter }, { now, thresholds })).toEqual([]);
  });
});
