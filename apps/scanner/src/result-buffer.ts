import {
  MAX_RESULTS_PER_POST,
  RESULTS_BATCH_BYTES,
  RESULTS_BODY_LIMIT,
  type ScanResult,
  withinErrorLimit,
} from '@certkeeper/domain/protocol';

const MiB = 1024 * 1024;
/** `{"results":[` and `]}` around the comma-separated results. */
const ENVELOPE_BYTES = Buffer.byteLength(JSON.stringify({ results: [] }));

interface Entry {
  result: ScanResult;
  /** UTF-8 bytes of its JSON, measured once. */
  bytes: number;
}

/**
 * Results waiting to be posted. When the API is unreachable they stay here and are retried;
 * past `capacity` the oldest are dropped (a newer run of the same endpoint supersedes them).
 * Every batch taken fits in one request the API accepts (RESULTS_BODY_LIMIT).
 */
export class ResultBuffer {
  private entries: Entry[] = [];
  dropped = 0;

  constructor(private readonly capacity = 20_000) {}

  get size(): number {
    return this.entries.length;
  }

  add(...results: ScanResult[]): void {
    this.entries.push(...results.map(measure));
    const excess = this.entries.length - this.capacity;
    if (excess > 0) {
      this.entries.splice(0, excess);
      this.dropped += excess;
    }
  }

  /**
   * Removes up to `count` results, oldest first, or fewer to stay under `maxBytes` of JSON. It
   * always takes at least one: add() made sure any single result fits in a request. Never more
   * than the API takes in one post (MAX_RESULTS_PER_POST), whatever `count` asks.
   */
  take(count: number, maxBytes = RESULTS_BATCH_BYTES): ScanResult[] {
    const budget = Math.min(maxBytes, RESULTS_BODY_LIMIT) - ENVELOPE_BYTES;
    let bytes = 0;
    let taken = 0;
    while (taken < Math.min(count, MAX_RESULTS_PER_POST, this.entries.length)) {
      bytes += this.entries[taken].bytes + (taken > 0 ? 1 : 0);
      if (taken > 0 && bytes > budget) break;
      taken += 1;
    }
    return this.entries.splice(0, taken).map((entry) => entry.result);
  }

  /** Puts back results whose post failed, ahead of newer ones. */
  putBack(results: ScanResult[]): void {
    this.entries.unshift(...results.map(measure));
  }
}

/**
 * A result the API could never take (a huge SAML document that JSON escaping blew past the body
 * limit) becomes a failed result saying so: sent as it is, it would be refused on every retry
 * and hold up everything queued behind it.
 */
function measure(reported: ScanResult): Entry {
  const result = withinLimits(reported);
  const bytes = jsonBytes(result);
  if (bytes + ENVELOPE_BYTES <= RESULTS_BODY_LIMIT) return { result, bytes };
  const error = `the result is too large to report: ${(bytes / MiB).toFixed(1)} MiB as JSON, over the API's ${RESULTS_BODY_LIMIT / MiB} MiB limit`;
  const failed: ScanResult =
    result.type === 'saml'
      ? { ...result, success: false, error, document: null }
      : { ...result, success: false, error, chain: [], tlsProfile: null };
  return { result: failed, bytes: jsonBytes(failed) };
}

/** The result with its error shortened to what the API takes, so it is never refused for its length. */
function withinLimits(result: ScanResult): ScanResult {
  const error = withinErrorLimit(result.error);
  return error === result.error ? result : { ...result, error };
}

function jsonBytes(result: ScanResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}
