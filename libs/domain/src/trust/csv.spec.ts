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

  it('reads text after a closing quote as part of the field', () => {
    expect(readCsv('"a"b,c')).toEqual([['ab', 'c']]);
  });

  it('returns no rows for empty input', () => {
    expect(readCsv('')).toEqual([]);
    expect(readCsv('\uFEFF\r\n')).toEqual([]);
  });

  it('refuses a quoted field that never closes', () => {
    expect(() => readCsv('a,"b\nc,d')).toThrow(CsvSyntaxError);
  });
});
