import { forEachConcurrently, type ResultOutcome, type ScanResult, type WorkItem } from '@certkeeper/domain';
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
 * the API could not take stay in the buffer. Throws ApiError when the work cannot be fetched.
 */
export async function runCycle(deps: CycleDependencies): Promise<CycleReport> {
  const started = Date.now();
  const batchSize = deps.batchSize ?? 100;
  const work = await deps.client.getWork();
  const totals = { posted: 0, rejected: 0 };
  // An object, not a local, so the closures' assignments are visible to the type checker.
  const inFlight: { flush: Promise<void> | null } = { flush: null };
  let apiDown = false;

  const flush = async (all: boolean) => {
    while (!apiDown && deps.buffer.size >= (all ? 1 : batchSize)) {
      const batch = deps.buffer.take(batchSize);
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

  await forEachConcurrently(work, deps.concurrency, async (item) => {
    deps.buffer.add(await deps.probe(item));
    if (!inFlight.flush && deps.buffer.size >= batchSize) {
      inFlight.flush = flush(false).finally(() => (inFlight.flush = null));
    }
  });
  await inFlight.flush;
  await flush(true);
  return { endpoints: work.length, ...totals, pending: deps.buffer.size, durationMs: Date.now() - started };
}
