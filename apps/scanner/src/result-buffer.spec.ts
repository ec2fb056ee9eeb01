import type { ScanResult } from '@certkeeper/domain';
import { ResultBuffer } from './result-buffer';

const result = (n: number, size = 10): ScanResult => ({
  resultId: `r${n}`,
  endpointId: 'e',
  type: 'saml',
  scannedAt: '2026-01-01T00:00:00Z',
  success: true,
  error: null,
  finalUrl: null,
  document: 'x'.repeat(size),
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

  it('stops a batch before it exceeds the byte budget, but always takes at least one', () => {
    const buffer = new ResultBuffer();
    buffer.add(result(1, 600), result(2, 600), result(3, 600));
    expect(buffer.take(10, 1000).map((r) => r.resultId)).toEqual(['r1']);
    expect(buffer.take(10, 10).map((r) => r.resultId)).toEqual(['r2']);
  });
});
