import { DEFAULT_ALERT_POLICY } from '../alert-policy';
import { dueEvents } from '../notification-events';

const now = new Date('2026-06-01T12:00:00Z');
const context = { now, thresholds: [30, 14, 7, 1], policy: DEFAULT_ALERT_POLICY };
const far = { fingerprint: 'a'.repeat(64), notAfter: new Date('2026-09-01T00:00:00Z') };

describe('renewal events', () => {
  it('rotation_regression: once per certificate (bucket 0) with the previous fingerprint and the regressions named', () => {
    const facts = { ...far, regressedRotation: { fromFingerprint: 'b'.repeat(64), regressions: ['sans', 'rollback'] } };
    expect(dueEvents(facts, context)).toEqual([
      { eventType: 'rotation_regression', bucket: 0, values: { PreviousFingerprint: 'b'.repeat(64), Regressions: 'sans, rollback' } },
    ]);
  });

  it('rotation_regression: not for a rotation without regressions, nor for a certificate without one', () => {
    expect(dueEvents({ ...far, regressedRotation: { fromFingerprint: 'b'.repeat(64), regressions: [] } }, context)).toEqual([]);
    expect(dueEvents(far, context)).toEqual([]);
  });

  it('renewal_not_deployed: once per deployed certificate with the renewal’s fingerprint and notBefore', () => {
    const facts = { ...far, supersededBy: { fingerprint: 'c'.repeat(64), notBefore: new Date('2026-05-20T08:30:00Z') } };
    expect(dueEvents(facts, context)).toEqual([
      { eventType: 'renewal_not_deployed', bucket: 0, values: { NewFingerprint: 'c'.repeat(64), NewNotBefore: '2026-05-20 08:30 UTC' } },
    ]);
  });

  it('comes beside the expiry events, in the order of the event-type list', () => {
    const facts = {
      fingerprint: 'a'.repeat(64),
      notAfter: new Date(now.getTime() + 3 * 24 * 3600 * 1000 + 1),
      supersededBy: { fingerprint: 'c'.repeat(64), notBefore: now },
    };
    expect(dueEvents(facts, context).map((event) => event.eventType)).toEqual(['cert_expiring', 'renewal_not_deployed']);
  });
});
