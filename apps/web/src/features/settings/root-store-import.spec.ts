import { describe, expect, it } from '@jest/globals';
import { importFileProblems } from './root-store-import';

const file = (name: string, size: number) => ({ name, size }) as File;
const MiB = 1024 * 1024;

describe('importFileProblems', () => {
  it('asks for the CSV and at least one PEM report', () => {
    expect(importFileProblems(null, [])).toEqual({
      matrix: 'Pick the all-included-roots CSV (AllIncludedRootCertsCSV).',
      pems: 'Pick at least one PEM report holding the roots the CSV lists.',
    });
    expect(importFileProblems(file('roots.csv', 100), [file('a.pem', 100)])).toEqual({ matrix: null, pems: null });
  });

  it('names a file over 10 MiB, too many files and over 64 MiB in all', () => {
    expect(importFileProblems(file('roots.csv', 11 * MiB), [file('a.pem', 1)]).matrix).toBe('roots.csv is over 10 MiB.');
    expect(importFileProblems(file('roots.csv', 1), [file('2010s.csv', 11 * MiB)]).pems).toMatch(
      /^2010s\.csv is over 10 MiB: use the per-year reports/,
    );
    expect(
      importFileProblems(
        file('roots.csv', 1),
        Array.from({ length: 48 }, (_, i) => file(`${i}.pem`, 1)),
      ).pems,
    ).toBe('At most 47 PEM reports in one import; 48 are picked.');
    expect(
      importFileProblems(
        file('roots.csv', 9 * MiB),
        Array.from({ length: 7 }, (_, i) => file(`${i}.pem`, 9 * MiB)),
      ).pems,
    ).toBe('The files come to more than 64 MiB in all.');
  });
});
