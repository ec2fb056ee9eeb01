import { cheapestFindingsWindowSearch } from './endpoints.repository';

describe('cheapestFindingsWindowSearch', () => {
  // The first page of 50 at 100,000 endpoints: docs/performance.md, "Findings".
  const firstPage = (matches: number) => cheapestFindingsWindowSearch(matches, 50, 100_000);

  it('sorts few matches, hashes a middle share and probes many, crossing near 400 and 3,000 at 100,000 endpoints', () => {
    expect([0, 100, 400].map(firstPage)).toEqual(['sort', 'sort', 'sort']);
    expect([450, 1_071, 2_000, 3_000].map(firstPage)).toEqual(['hash', 'hash', 'hash', 'hash']);
    expect([3_200, 20_000, 33_000].map(firstPage)).toEqual(['probe', 'probe', 'probe']);
  });

  it('never hashes more matches than PostgreSQL would keep in hash memory, however deep the page', () => {
    // Deep in a million endpoints the walk is long, but 400,000 ids would not be hashed.
    expect(cheapestFindingsWindowSearch(90_000, 100_050, 1_000_000)).toBe('hash');
    expect(cheapestFindingsWindowSearch(400_000, 100_050, 1_000_000)).toBe('probe');
  });
});
