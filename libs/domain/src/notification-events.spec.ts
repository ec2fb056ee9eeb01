import { DEFAULT_ALERT_POLICY } from './alert-policy';
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
    expect(dueEvents(expiringIn(ms), { now, thresholds, policy: DEFAULT_ALERT_POLICY })).toEqual(expected);
  });

  it('never calls for both expiry events at once', () => {
    for (const ms of [-DAY_MS, -1, 0, 1, DAY_MS, 40 * DAY_MS])
      expect(dueEvents(expiringIn(ms), { now, thresholds, policy: DEFAULT_ALERT_POLICY }).length).toBeLessThanOrEqual(1);
  });
});

describe('lifetime-aware cert_expiring', () => {
  const issuedDaysBefore = (lifetime: number, remainingMs: number) => {
    const notAfter = new Date(now.getTime() + remainingMs);
    return { fingerprint: 'f'.repeat(64), notAfter, notBefore: new Date(notAfter.getTime() - lifetime * DAY_MS) };
  };
  const aware = { ...DEFAULT_ALERT_POLICY, lifetimeAware: true };

  it('records the effective threshold as the bucket: a 47-day certificate 15 days out is in the 16 bucket', () => {
    expect(dueEvents(issuedDaysBefore(47, 15 * DAY_MS + 1), { now, thresholds, policy: aware })).toEqual([
      { eventType: 'cert_expiring', bucket: 16 },
    ]);
  });

  it('sends nothing for a 6-day certificate 5 days out, which plain thresholds would (bucket 7)', () => {
    const facts = issuedDaysBefore(6, 5 * DAY_MS + 1);
    expect(dueEvents(facts, { now, thresholds, policy: aware })).toEqual([]);
    expect(dueEvents(facts, { now, thresholds, policy: DEFAULT_ALERT_POLICY })).toEqual([{ eventType: 'cert_expiring', bucket: 7 }]);
  });

  it('keeps the plain thresholds for a certificate whose notBefore is not known', () => {
    expect(dueEvents(expiringIn(5 * DAY_MS + 1), { now, thresholds, policy: aware })).toEqual([{ eventType: 'cert_expiring', bucket: 7 }]);
  });
});

describe('renewal_overdue', () => {
  const withWindow = (endMs: number, explanationUrl: string | null = 'https://ca.example/why') => ({
    fingerprint: 'f'.repeat(64),
    notAfter: new Date(now.getTime() + 40 * DAY_MS),
    renewalWindow: { start: new Date(now.getTime() + endMs - DAY_MS), end: new Date(now.getTime() + endMs), explanationUrl },
  });
  const context = { now, thresholds, policy: DEFAULT_ALERT_POLICY };

  it('is due once the window has ended, in bucket 0, with the window and the explanation', () => {
    expect(dueEvents(withWindow(0), context)).toEqual([
      {
        eventType: 'renewal_overdue',
        bucket: 0,
        values: { WindowStart: '2026-05-31 12:00 UTC', WindowEnd: '2026-06-01 12:00 UTC', ExplanationURL: 'https://ca.example/why' },
      },
    ]);
  });

  it('is not due while the window is open or ahead', () => {
    expect(dueEvents(withWindow(1), context)).toEqual([]);
  });

  it('is not due when the policy does not use renewal information', () => {
    expect(dueEvents(withWindow(-DAY_MS), { ...context, policy: { ...DEFAULT_ALERT_POLICY, renewalInfo: false } })).toEqual([]);
  });

  it('gives an empty ExplanationURL when the CA gave none', () => {
    expect(dueEvents(withWindow(-1, null), context)[0].values?.ExplanationURL).toBe('');
  });
});

describe('cert_revoked', () => {
  const fingerprint = 'f'.repeat(64);
  const notAfter = new Date(now.getTime() + 200 * DAY_MS);
  const revokedAt = new Date('2026-05-30T08:30:00Z');

  it('is due once (bucket 0) for a certificate found revoked, with when and why', () => {
    const revocation = { status: 'revoked' as const, revokedAt, reason: 'keyCompromise' };
    expect(dueEvents({ fingerprint, notAfter, revocation }, { now, thresholds, policy: DEFAULT_ALERT_POLICY })).toEqual([
      { eventType: 'cert_revoked', bucket: 0, values: { RevokedAt: '2026-05-30 08:30 UTC', Reason: 'keyCompromise' } },
    ]);
  });

  it('is not due for a good or unknown status, nor without a check', () => {
    for (const status of ['good', 'unknown'] as const)
      expect(
        dueEvents(
          { fingerprint, notAfter, revocation: { status, revokedAt: null, reason: null } },
          { now, thresholds, policy: DEFAULT_ALERT_POLICY },
        ),
      ).toEqual([]);
    expect(dueEvents({ fingerprint, notAfter }, { now, thresholds, policy: DEFAULT_ALERT_POLICY })).toEqual([]);
  });
});
