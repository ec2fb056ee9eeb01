// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { alertDaysText } from './lifetime-policy';

describe('alertDaysText', () => {
  const thresholds = [30, 14, 7, 1];
  const aware = { lifetimeAware: true, lifetimeFraction: 0.33 };

  it('lists the days the alert job would use, the last joined by "and"', () => {
    expect(alertDaysText(thresholds, 6, aware)).toBe('alerts at 2 and 1 days');
    expect(alertDaysText(thresholds, 47, aware)).toBe('alerts at 16, 14, 7 and 1 days');
    expect(alertDaysText(thresholds, 398, aware)).toBe('alerts at 30, 14, 7 and 1 days');
  });

  it('keeps every threshold while the policy is off', () => {
    expect(alertDaysText(thresholds, 6, { ...aware, lifetimeAware: false })).toBe('alerts at 30, 14, 7 and 1 days');
  });

  it('says one day in the singular', () => {
    expect(alertDaysText([1], 90, aware)).toBe('alerts at 1 day');
    expect(alertDaysText([5], 2, aware)).toBe('alerts at 1 day');
  });
});
