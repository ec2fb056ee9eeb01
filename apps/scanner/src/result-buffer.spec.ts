import { MAX_RESULTS_PER_POST, RESULT_LIMITS, RESULTS_BODY_LIMIT, type SamlScanResult } from '@certkeeper/domain/protocol';
import { ResultBuffer } from './result-buffer';

const result = (n: number, size = 10, char = 'x'): SamlScanResult => ({
  resultId: `r${n}`,
  endpointId: 'e',
  type: 'saml',
  scannedAt: '2026-01-01T00:00:00Z',
  success: true,
  error: null,
  finalUrl: null,
  document: char.repeat(size),
  digest: null,
});

describe('ResultBuffer', () => {
  it('takes oldest first, puts failed batches back in front, and drops the oldest past capacity', () => {
    const buffer = new ResultBuffer(3);
    buffer.add(result(1), result(2));
    const batch = buffer.take(1);
    buffer.add(result(3));
    buffer.putBack(batch);
    expect(buffer.take(10).map((r) => r.resultId)).toEqual(['r1', 'r2', 'r3']);
    buffer.add(result(4), result(5), result(6), result(7));
    expect([buffer.size, buffer.dropped]).toEqual([3, 1]);
    expect(buffer.take(10).map((r) => r.resultId)).toEqual(['r5', 'r6', 'r7']);
  });

  it('never takes more results than the API accepts in one post, whatever count it is asked for', () => {
    const buffer = new ResultBuffer();
    buffer.add(...Array.from({ length: MAX_RESULTS_PER_POST + 5 }, (_, n) => result(n, 1)));
    expect(buffer.take(MAX_RESULTS_PER_POST * 2)).toHaveLength(MAX_RESULTS_PER_POST);
    expect(buffer.size).toBe(5);
  });

  it("shortens an error to the API's limit, so the result is not refused for its length", () => {
    const buffer = new ResultBuffer();
    buffer.add({ ...result(1), success: false, document: null, error: 'e'.repeat(RESULT_LIMITS.error * 2) });
    const [taken] = buffer.take(1);
    expect(taken.error).toHaveLength(RESULT_LIMITS.error);
    expect(taken.error!.startsWith('eee')).toBe(true);
  });

  it('stops a batch before it exceeds the byte budget, but always takes at least one', () => {
    const buffer = new ResultBuffer();
    buffer.add(result(1, 600), result(2, 600), result(3, 600));
    expect(buffer.take(10, 1000).map((r) => r.resultId)).toEqual(['r1']);
    expect(buffer.take(10, 10).map((r) => r.resultId)).toEqual(['r2']);
  });

  it('counts bytes, not characters, against the budget', () => {
    const buffer = new ResultBuffer();
    buffer.add(result(1, 600, 'é'), result(2, 600, 'é'));
    expect(buffer.take(10, 2000).map((r) => r.resultId)).toEqual(['r1']);
  });

  it('turns a result the API could never take into a failed one that says why', () => {
    // JSON writes each control character as \u00XX: 6 MiB of them become 36 MiB.
    const huge = result(1, 6 * 1024 * 1024, '\u0001');
    expect(Buffer.byteLength(JSON.stringify({ results: [huge] }))).toBeGreaterThan(RESULTS_BODY_LIMIT);
    const buffer = new ResultBuffer();
    buffer.add(huge, result(2));
    const batch = buffer.take(10);
    expect(batch.map((r) => r.resultId)).toEqual(['r1', 'r2']);
    expect(batch[0]).toMatchObject({ success: false, document: null, finalUrl: null });
    expect(batch[0].error).toMatch(/^the result is too large to report: 36\.0 MiB as JSON, over the API's 33 MiB limit$/);
    expect(batch[1]).toEqual(result(2));
  });

  it('never lets a batch pass the API body limit, whatever budget it is asked for', () => {
    const buffer = new ResultBuffer();
    // Three results of 15 MiB fit one at a time but not together.
    buffer.add(result(1, 15 * 1024 * 1024), result(2, 15 * 1024 * 1024), result(3, 15 * 1024 * 1024));
    const batch = buffer.take(10, Number.POSITIVE_INFINITY);
    expect(batch.map((r) => r.resultId)).toEqual(['r1', 'r2']);
    expect(Buffer.byteLength(JSON.stringify({ results: batch }))).toBeLessThanOrEqual(RESULTS_BODY_LIMIT);
    expect(buffer.take(10).map((r) => r.resultId)).toEqual(['r3']);
  });
});
