const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate's lifetime in days, fractional: notAfter − notBefore (docs/api-contract.md section 15). */
export function lifetimeDays(notBefore: Date, notAfter: Date): number {
  return (notAfter.getTime() - notBefore.getTime()) / DAY_MS;
}

/**
 * The thresholds that apply to a certificate of `lifetime` days when alerts are lifetime-aware:
 * each configured threshold t becomes min(t, ceil(lifetime × fraction)), equal values merged,
 * descending. With 30, 14, 7, 1 and 0.33 a 6-day certificate has 2 and 1, a 47-day one 16, 14, 7
 * and 1, and a 90-day one keeps all four: a short-lived certificate is not announced as expiring
 * from the day it is issued.
 */
export function lifetimeThresholds(thresholds: readonly number[], lifetime: number, fraction: number): number[] {
  // Rounded first so that 300 × 0.33 (99.00000000000001 in floating point) is 99, not 100.
  const cap = Math.ceil(Number((lifetime * fraction).toFixed(9)));
  return [...new Set(thresholds.map((threshold) => Math.min(threshold, cap)))].sort((a, b) => b - a);
}
