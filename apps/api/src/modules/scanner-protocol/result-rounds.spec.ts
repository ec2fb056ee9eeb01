import type { ScanResult } from '@certkeeper/domain/protocol';
import { inRounds } from './result-rounds';

const item = (endpointId: string, scannedAt: string, resultId: string) => ({
  result: { type: 'host', endpointId, scannedAt, resultId } as ScanResult,
});

describe('inRounds', () => {
  it('puts one result of each endpoint in a round, each endpoint oldest first', () => {
    const rounds = inRounds([
      item('a', '2026-01-01T00:00:03Z', 'a3'),
      item('b', '2026-01-01T00:00:01Z', 'b1'),
      item('a', '2026-01-01T00:00:01Z', 'a1'),
      item('a', '2026-01-01T00:00:02Z', 'a2'),
    ]);
    expect(rounds.map((round) => round.map((entry) => entry.result.resultId))).toEqual([['a1', 'b1'], ['a2'], ['a3']]);
  });

  it('keeps a post with one result per endpoint as a single round, in order', () => {
    const rounds = inRounds([item('b', '2026-01-01T00:00:02Z', 'b'), item('a', '2026-01-01T00:00:01Z', 'a')]);
    expect(rounds.map((round) => round.map((entry) => entry.result.resultId))).toEqual([['b', 'a']]);
  });

  it('returns no rounds for no results', () => {
    expect(inRounds([])).toEqual([]);
  });
});
