import { mergeCandidates } from './fact-loader';

const notAfter = new Date('2026-12-01T00:00:00Z');
const endpoint = (id: string) => ({ id, name: `app-${id}`, type: 'host' as const });

describe('mergeCandidates', () => {
  it('gives one candidate per certificate with every loader’s facts and each endpoint once', () => {
    const expiry = [{ fingerprint: 'a', commonName: 'a.example', notAfter, endpoints: [endpoint('1')] }];
    const other = [
      { fingerprint: 'a', commonName: 'a.example', notAfter, endpoints: [endpoint('1'), endpoint('2')], windowEnd: notAfter },
      { fingerprint: 'b', commonName: null, notAfter, endpoints: [endpoint('3')] },
    ];
    expect(mergeCandidates([expiry, other])).toEqual([
      { fingerprint: 'a', commonName: 'a.example', notAfter, endpoints: [endpoint('1'), endpoint('2')], windowEnd: notAfter },
      { fingerprint: 'b', commonName: null, notAfter, endpoints: [endpoint('3')] },
    ]);
  });

  it('leaves the loaders’ own lists untouched', () => {
    const first = { fingerprint: 'a', commonName: null, notAfter, endpoints: [endpoint('1')] };
    mergeCandidates([[first], [{ ...first, endpoints: [endpoint('2')] }]]);
    expect(first.endpoints).toEqual([endpoint('1')]);
  });
});
