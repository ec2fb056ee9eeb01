// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { expiryLevel, type ExpiryLevel } from './expiry';

/** The level of each days-remaining figure, for one list of thresholds. */
function levels(thresholds: number[], days: number[]): Record<number, ExpiryLevel> {
  return Object.fromEntries(days.map((day) => [day, expiryLevel(day, thresholds)]));
}

describe('expiryLevel', () => {
  it('with four thresholds: critical within the smallest, warning within the second, notice within the largest', () => {
    expect(levels([30, 14, 7, 1], [0, 1, 2, 7, 8, 14, 15, 30, 31, 400])).toEqual({
      0: 'critical',
      1: 'critical',
      2: 'warning',
      7: 'warning',
      8: 'notice',
      14: 'notice',
      15: 'notice',
      30: 'notice',
      31: 'ok',
      400: 'ok',
    });
  });

  it('with three thresholds: one band each', () => {
    expect(levels([30, 14, 7], [7, 8, 14, 15, 30, 31])).toEqual({
      7: 'critical',
      8: 'warning',
      14: 'warning',
      15: 'notice',
      30: 'notice',
      31: 'ok',
    });
  });

  it('with two thresholds: critical within the smaller, notice within the larger, no warning band', () => {
    expect(levels([30, 7], [0, 7, 8, 29, 30, 31])).toEqual({
      0: 'critical',
      7: 'critical',
      8: 'notice',
      29: 'notice',
      30: 'notice',
      31: 'ok',
    });
  });

  it('with one threshold: critical within it, fine beyond', () => {
    expect(levels([10], [0, 10, 11, 365])).toEqual({ 0: 'critical', 10: 'critical', 11: 'ok', 365: 'ok' });
  });

  it('with no threshold: every certificate still valid is fine', () => {
    expect(levels([], [0, 1, 365])).toEqual({ 0: 'ok', 1: 'ok', 365: 'ok' });
  });

  it('reads the thresholds in any order and leaves the caller’s list as it was', () => {
    const thresholds = [7, 30, 1, 14];
    expect(levels(thresholds, [1, 2, 8, 31])).toEqual({ 1: 'critical', 2: 'warning', 8: 'notice', 31: 'ok' });
    expect(thresholds).toEqual([7, 30, 1, 14]);
  });

  it('is expired below zero days by default, and whenever the caller says so', () => {
    expect(expiryLevel(-1, [30, 14, 7, 1])).toBe('expired');
    expect(expiryLevel(-400, [])).toBe('expired');
    // Zero days left can still be hours before or after notAfter: the caller's exact answer wins.
    expect(expiryLevel(0, [30, 14, 7, 1], true)).toBe('expired');
    expect(expiryLevel(0, [30, 14, 7, 1], false)).toBe('critical');
    expect(expiryLevel(45, [30], true)).toBe('expired');
  });
});
