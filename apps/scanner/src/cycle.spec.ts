import type { ResultOutcome, ScanResult, WorkItem } from '@certkeeper/domain/protocol';
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

  it('posts the results kept from an earlier cycle as soon as the work listing succeeds, before probing ends', async () => {
    const buffer = new ResultBuffer();
    buffer.add(...(await Promise.all(work.slice(0, 3).map(probe))));
    const posted: string[][] = [];
    let releaseProbes!: () => void;
    const probesHeld = new Promise<void>((resolve) => (releaseProbes = resolve));
    const client = {
      getWork: () => Promise.resolve(work.slice(3, 5)),
      postResults: (results: ScanResult[]) => {
        posted.push(results.map((r) => r.endpointId));
        // The kept results arrive while this cycle's probes are still held.
        releaseProbes();
        return Promise.resolve(accept(results));
      },
    };
    const heldProbe = async (item: WorkItem) => {
      await probesHeld;
      return probe(item);
    };
    const report = await runCycle({ client, buffer, probe: heldProbe, concurrency: 2, log, batchSize: 10 });
    expect(posted).toEqual([
      ['e0', 'e1', 'e2'],
      ['e3', 'e4'],
    ]);
    expect(report).toMatchObject({ endpoints: 2, posted: 5, pending: 0 });
  });

  it('keeps the earlier results when the API fails again, and still probes', async () => {
    const buffer = new ResultBuffer();
    buffer.add(...(await Promise.all(work.slice(0, 3).map(probe))));
    const client = {
      getWork: () => Promise.resolve(work.slice(3, 5)),
      postResults: () => Promise.reject(new ApiError('API answered 503: The database is unreachable', 503, true)),
    };
    const report = await runCycle({ client, buffer, probe, concurrency: 2, log, batchSize: 10 });
    expect(report).toMatchObject({ endpoints: 2, posted: 0, pending: 5 });
    expect(buffer.take(10).map((r) => r.endpointId)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
  });

  it('fails the cycle when the API refuses the kept results for good, keeping them, without an unobserved rejection', async () => {
    const buffer = new ResultBuffer();
    buffer.add(...(await Promise.all(work.slice(0, 3).map(probe))));
    const client = {
      getWork: () => Promise.resolve(work.slice(3, 5)),
      postResults: () => Promise.reject(new ApiError('API answered 401: Invalid token', 401, false)),
    };
    const slowProbe = async (item: WorkItem) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return probe(item);
    };
    await expect(runCycle({ client, buffer, probe: slowProbe, concurrency: 1, log, batchSize: 10 })).rejects.toThrow('401');
    expect(buffer.size).toBe(5);
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
