import { alertBucket } from './alert-bucket';
import { lifetimeDays, lifetimeThresholds } from './lifetime-thresholds';

const DAY_MS = 24 * 60 * 60 * 1000;
const thresholds = [30, 14, 7, 1];

describe('lifetimeThresholds', () => {
  it.each([
    [6, [2, 1]],
    [45, [15, 14, 7, 1]],
    [47, [16, 14, 7, 1]],
    [90, [30, 14, 7, 1]],
    [200, [30, 14, 7, 1]],
    [398, [30, 14, 7, 1]],
  ])('a %i-day certificate with 0.33 has the thresholds %j', (days, expected) => {
    expect(lifetimeThresholds(thresholds, days, 0.33)).toEqual(expected);
  });

  it.each([
    // 6 days: nothing until 2 days remain, then the 2 bucket, then the 1 bucket.
    [6, 3, null],
    [6, 2, 2],
    [6, 1, 1],
    // 45 days: 15 replaces 30, so 20 days remaining is no alert yet and 15 is the first.
    [45, 20, null],
    [45, 15, 15],
    [45, 14, 14],
    // 47 days: 16 replaces 30.
    [47, 17, null],
    [47, 16, 16],
    [47, 10, 14],
    // 90, 200 and 398 days: the configured buckets, exactly as without the policy.
    [90, 30, 30],
    [90, 31, null],
    [200, 30, 30],
    [200, 12, 14],
    [398, 30, 30],
    [398, 7, 7],
  ])('a %i-day certificate with %i days remaining is in the %s bucket', (lifetime, remaining, bucket) => {
    const hit = alertBucket(remaining, false, lifetimeThresholds(thresholds, lifetime, 0.33));
    expect(hit === null ? null : hit.threshold).toBe(bucket);
  });

  it('merges thresholds the cap makes equal, and keeps those below it', () => {
    expect(lifetimeThresholds([60, 30, 20, 3], 30, 0.5)).toEqual([15, 3]);
  });

  it('is not pushed over a whole number by floating point', () => {
    expect(lifetimeThresholds([200], 300, 0.33)).toEqual([99]);
  });

  it('rounds a fractional cap up, so a 160-hour certificate keeps 3 days', () => {
    expect(lifetimeThresholds(thresholds, lifetimeDays(new Date(0), new Date(160 * 3600 * 1000)), 0.33)).toEqual([3, 1]);
  });
});

describe('lifetimeDays', () => {
  it('is fractional', () => {
    expect(lifetimeDays(new Date(0), new Date(6.5 * DAY_MS))).toBe(6.5);
  });
});
