import type { ScanResult } from '@certkeeper/domain/protocol';

/**
 * Splits a post's results into rounds that can each be applied set-based: round k holds the k-th
 * oldest result of every endpoint, so no round names an endpoint twice, and applying the rounds
 * in order applies each endpoint's results oldest first, as one at a time would.
 */
export function inRounds<T extends { result: ScanResult }>(items: T[]): T[][] {
  const byEndpoint = new Map<string, T[]>();
  for (const item of items) {
    const same = byEndpoint.get(item.result.endpointId);
    if (same) same.push(item);
    else byEndpoint.set(item.result.endpointId, [item]);
  }
  const rounds: T[][] = [];
  for (const results of byEndpoint.values()) {
    if (results.length > 1) results.sort((a, b) => Date.parse(a.result.scannedAt) - Date.parse(b.result.scannedAt));
    results.forEach((item, k) => (rounds[k] ??= []).push(item));
  }
  return rounds;
}
