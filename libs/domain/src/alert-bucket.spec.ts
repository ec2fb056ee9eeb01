import { alertBucket } from './alert-bucket';

describe('alertBucket', () => {
  const thresholds = [30, 14, 7, 1];
  it.each([
    [31, null],
    [30, 30],
    [15, 30],
    [12, 14],
    [7, 7],
    [2, 7],
    [1, 1],
    [0, 1],
  ])('%i days remaining falls in the %s bucket', (days, threshold) => {
    expect(alertBucket(days, false, thresholds)).toEqual(threshold === null ? null : { eventType: 'cert_expiring', threshold });
  });

  it('is cert_expired with threshold 0 once expired, whatever the thresholds', () => {
    expect(alertBucket(-1, true, thresholds)).toEqual({ eventType: 'cert_expired', threshold: 0 });
    expect(alertBucket(0, true, [5])).toEqual({ eventType: 'cert_expired', threshold: 0 });
  });

  it('does not depend on the order thresholds are given in', () => {
    expect(alertBucket(12, false, [1, 7, 14, 30])).toEqual({ eventType: 'cert_expiring', threshold: 14 });
  });
});
