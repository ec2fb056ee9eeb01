import { forEachConcurrently } from '@certkeeper/domain';
import type { ResultOutcome, ScanResult, WorkItem } from '@certkeeper/domain/protocol';
import { ApiError } from './api-client';
import type { Log } from './log';
import type { ResultBuffer } from './result-buffer';

export interface CycleDependencies {
  client: { getWork(): Promise<WorkItem[]>; postResults(results: ScanResult[]): Promise<ResultOutcome[]> };
  buffer: ResultBuffer;
  probe: (item: WorkItem) => Promise<ScanResult>;
  concurrency: number;
  log: Log;
  batchSize?: number;
}

/**
 * Results per post (the API takes up to 1,000: MAX_RESULTS_PER_POST). Each post has a fixed cost
 * in the API and in PostgreSQL (authentication, a transaction, the statements of one round), so
 * fewer, larger posts leave more of the machine to the probes; much larger ones would lengthen
 * the cycle's end, where the last batch is posted after the last probe.
 */
const DEFAULT_BATCH_SIZE = 250;

export interface CycleReport {
  endpoints: number;
  posted: number;
  rejected: number;
  /** Results still buffered because the API could not take them; retried next time. */
  pending: number;
  durationMs: number;
}

/**
 * One scan cycle: fetch the assigned work, probe it `concurrency` at a time, and post results in
 * batches while probing continues, so memory stays flat and the API ingests as we go. Results
 * the API could not take stay in the buffer, and are posted first once the work listing succeeds
 * again. Throws ApiError when the work cannot be fetched.
 */
export async function runCycle(deps: CycleDependencies): Promise<CycleReport> {
  const started = Date.now();
  const batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const work = await deps.client.getWork();
  const totals = { posted: 0, rejected: 0 };
  // An object, not a local, so the closures' assignments are visible to the type checker.
  const inFlight: { flush: Promise<void> | null } = { flush: null };
  let apiDown = false;

  /** Posts full batches (or, with `all`, everything), at most `limit` results. */
  const flush = async (all: boolean, limit = Infinity) => {
    let left = limit;
    while (!apiDown && left > 0 && deps.buffer.size >= (all ? 1 : batchSize)) {
      const batch = deps.buffer.take(Math.min(batchSize, left));
      left -= batch.length;
      try {
        const outcomes = await deps.client.postResults(batch);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            totals.rejected += 1;
            deps.log('warn', `result rejected: ${outcome.error}`, { endpointId: outcome.endpointId, code: outcome.code });
          } else totals.posted += 1;
        }
      } catch (error) {
        deps.buffer.putBack(batch);
        if (!(error instanceof ApiError) || !error.transient) throw error;
        apiDown = true;
        deps.log('warn', `could not post results, keeping ${deps.buffer.size} for later: ${error.message}`);
      }
    }
  };

  // A flush in the background must not reject unobserved (an unhandled rejection ends the
  // process): its fatal error stops posting and is thrown once the probes are done.
  let fatal: { error: unknown } | null = null;
  const flushInBackground = (all: boolean, limit?: number) => {
    inFlight.flush = flush(all, limit)
      .catch((error: unknown) => {
        fatal ??= { error };
        apiDown = true;
      })
      .finally(() => (inFlight.flush = null));
  };

  // Results kept from an earlier cycle (the API or its database was down) go first: the work
  // listing just proved the API answers again, and they should not wait for this cycle's probes
  // to fill a batch (docs/api-contract.md, health and database outages).
  if (deps.buffer.size > 0) flushInBackground(true, deps.buffer.size);

  await forEachConcurrently(work, deps.concurrency, async (item) => {
    deps.buffer.add(await deps.probe(item));
    if (!inFlight.flush && deps.buffer.size >= batchSize) flushInBackground(false);
  });
  await inFlight.flush;
  if (fatal) throw (fatal as { error: unknown }).error;
  await flush(true);
  return { endpoints: work.length, ...totals, pending: deps.buffer.size, durationMs: Date.now() - started };
}
