import { CsvSyntaxError, readCsv } from './csv';

describe('readCsv', () => {
  it('reads quoted fields holding commas, doubled quotes and line breaks', () => {
    const csv = 'name,notes\r\n"Root, ""Global""","line one\r\nline two\nline three"\r\nplain,\r\n';
    expect(readCsv(csv)).toEqual([
      ['name', 'notes'],
      ['Root, "Global"', 'line one\r\nline two\nline three'],
      ['plain', ''],
    ]);
  });

  it('accepts LF, CRLF and lone CR record ends, a BOM, blank lines and no final newline', () => {
    expect(readCsv('\uFEFFa,b\n1,2\r\n\r\n3,4\r5,6')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
  });

  it('keeps empty fields, including a quoted empty one and a trailing one', () => {
    expect(readCsv('a,,"",\n')).toEqual([['a', '', '', '']]);
  });

  it('keeps stray quotes as text instead of failing the whole file', () => {
    // Text after a closing quote keeps both quotes (csv-parse's relax_quotes cannot drop them).
    expect(readCsv('"a"b,c')).toEqual([['"a"b', 'c']]);
    expect(readCsv('a"b,c\n')).toEqual([['a"b', 'c']]);
  });

  it('drops lines whose fields are all blank and keeps short rows short', () => {
    expect(readCsv('a,b,c\n , \n1\n')).toEqual([['a', 'b', 'c'], ['1']]);
  });

  it('returns no rows for empty input', () => {
    expect(readCsv('')).toEqual([]);
    expect(readCsv('\uFEFF\r\n')).toEqual([]);
  });

  it('refuses a quoted field that never closes', () => {
    expect(() => readCsv('a,"b\nc,d')).toThrow(new CsvSyntaxError('A quoted CSV field is not closed: the file is probably truncated.'));
  });
});
