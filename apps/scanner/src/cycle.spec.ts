import type { ResultOutcome, ScanResult, WorkItem } from '@certkeeper/domain';
import { ApiError } from './api-client';
import { forEachConcurrently } from '@certkeeper/domain';
import { runCycle } from './cycle';
import { ResultBuffer } from './result-buffer';

const work: WorkItem[] = Array.from({ length: 25 }, (_, i) => ({ endpointId: `e${i}`, type: 'saml', metadataUrl: `https://idp${i}/md` }));
const probe = (item: WorkItem): Promise<ScanResult> =>
  Promise.resolve({
    resultId: `r-${item.endpointId}`,
    endpointId: item.endpointId,
    type: 'saml',
    scannedAt: '2026-01-01T00:00:00Z',
    success: true,
    error: null,
    finalUrl: null,
    document: '<x/>',
    digest: null,
  });
const accept = (results: ScanResult[]): ResultOutcome[] =>
  results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' }));
const log = () => undefined;

/** The API as the agent sees it, kept in memory: the outside world of this unit. */
function api(options: { failPostsFrom?: number } = {}) {
  const posts: number[] = [];
  return {
    posts,
    getWork: () => Promise.resolve(work),
    postResults: (results: ScanResult[]) => {
      posts.push(results.length);
      if (options.failPostsFrom !== undefined && posts.length > options.failPostsFrom)
        return Promise.reject(new ApiError('API unreachable', null, true));
      return Promise.resolve(accept(results));
    },
  };
}

describe('runCycle', () => {
  it('probes everything and posts in batches while probing', async () => {
    const client = api();
    const report = await runCycle({ client, buffer: new ResultBuffer(), probe, concurrency: 4, log, batchSize: 10 });
    expect(report).toMatchObject({ endpoints: 25, posted: 25, rejected: 0, pending: 0 });
    expect(client.posts.reduce((a, b) => a + b, 0)).toBe(25);
    expect(Math.max(...client.posts)).toBeLessThanOrEqual(10);
  });

  it('keeps what the API could not take, and posts it on the next cycle', async () => {
    const buffer = new ResultBuffer();
    const down = api({ failPostsFrom: 1 });
    const first = await runCycle({ client: down, buffer, probe, concurrency: 4, log, batchSize: 10 });
    expect(first.posted).toBe(10);
    expect(first.pending).toBe(15);
    const up = api();
    const second = await runCycle({ client: up, buffer, probe, concurrency: 4, log, batchSize: 10 });
    expect(second).toMatchObject({ posted: 40, pending: 0 });
  });

  it('counts rejected results without retrying them', async () => {
    const client = {
      ...api(),
      postResults: (results: ScanResult[]) =>
        Promise.resolve(
          results.map((r) => ({
            resultId: r.resultId,
            endpointId: r.endpointId,
            status: 'rejected' as const,
            code: 403 as const,
            error: 'not assigned',
          })),
        ),
    };
    const report = await runCycle({ client, buffer: new ResultBuffer(), probe, concurrency: 2, log });
    expect(report).toMatchObject({ posted: 0, rejected: 25, pending: 0 });
  });

  it('fails when the work cannot be fetched', async () => {
    const client = { ...api(), getWork: () => Promise.reject(new ApiError('API unreachable: ECONNREFUSED', null, true)) };
    await expect(runCycle({ client, buffer: new ResultBuffer(), probe, concurrency: 2, log })).rejects.toThrow('ECONNREFUSED');
  });
});

describe('forEachConcurrently', () => {
  it('never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    await forEachConcurrently(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
      },
    );
    expect(peak).toBe(3);
  });
});
