import type { ScanResult } from '@certkeeper/domain';

/**
 * Results waiting to be posted. When the API is unreachable they stay here and are retried;
 * past `capacity` the oldest are dropped (a newer run of the same endpoint supersedes them).
 */
export class ResultBuffer {
  private results: ScanResult[] = [];
  dropped = 0;

  constructor(private readonly capacity = 20_000) {}

  get size(): number {
    return this.results.length;
  }

  add(...results: ScanResult[]): void {
    this.results.push(...results);
    const excess = this.results.length - this.capacity;
    if (excess > 0) {
      this.results.splice(0, excess);
      this.dropped += excess;
    }
  }

  /** Removes up to `count` results, oldest first, or fewer to stay under `maxBytes` of JSON. */
  take(count: number, maxBytes = 8 * 1024 * 1024): ScanResult[] {
    let bytes = 0;
    let taken = 0;
    while (taken < Math.min(count, this.results.length)) {
      bytes += JSON.stringify(this.results[taken]).length;
      if (taken > 0 && bytes > maxBytes) break;
      taken += 1;
    }
    return this.results.splice(0, taken);
  }

  /** Puts back results whose post failed, ahead of newer ones. */
  putBack(results: ScanResult[]): void {
    this.results.unshift(...results);
  }
}
