import { longestCronGapMs } from './cron';

/** However often a scanner's schedule runs, it is not offline until it has been quiet this long. */
export const SCANNER_OFFLINE_FLOOR_MS = 10 * 60 * 1000;

/**
 * Whether a scanner counts as online (docs/api-contract.md section 11): it has called in, and not
 * longer ago than twice the longest gap of its scan schedule and at least 10 minutes. Twice the
 * gap, so that an agent run from cron once per schedule is not offline between its runs, nor when
 * one run is late. A schedule that never runs sets no bound: a scanner that called in once is online.
 */
export function isScannerOnline(lastUsedAt: Date | null, scanCronExpression: string, now: Date): boolean {
  if (lastUsedAt === null) return false;
  const gap = longestCronGapMs(scanCronExpression);
  if (gap === null) return true;
  return now.getTime() - lastUsedAt.getTime() <= Math.max(2 * gap, SCANNER_OFFLINE_FLOOR_MS);
}
