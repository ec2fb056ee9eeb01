import { ApiProperty } from '@nestjs/swagger';
import { parse } from 'csv-parse/sync';
import { csvColumnsOf, csvWriter, neutraliseFormula, toCell, toRecord } from './csv-cells';
import { negotiateExportFormat } from './export-format';

class ParentDto {
  @ApiProperty() certUse!: string;
  @ApiProperty({ type: [String] }) sans!: string[];
}

class ChildDto extends ParentDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) details!: Record<string, unknown>;
  @ApiProperty({ type: [ParentDto] }) nested!: ParentDto[];
  @ApiProperty({ type: ParentDto }) one!: ParentDto;
  @ApiProperty({ enum: ['a', 'b'] }) kind!: string;
  @ApiProperty({ type: 'integer', nullable: true }) days!: number | null;
}

describe('CSV cells', () => {
  it('prefixes text a spreadsheet would evaluate', () => {
    for (const text of ['=HYPERLINK("http://x")', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(neutraliseFormula(text)).toBe(`'${text}`);
    for (const text of ['plain', ' =not-first', '1-2', '', "'quoted", 'cn\n=1+2']) expect(neutraliseFormula(text)).toBe(text);
  });

  it('prefixes the full-width forms of the formula signs too', () => {
    for (const text of ['\uFF1D1+2', '\uFF0B1', '\uFF0D1', '\uFF20SUM(A1)']) expect(neutraliseFormula(text)).toBe(`'${text}`);
    expect(neutraliseFormula('a\uFF1D1')).toBe('a\uFF1D1');
  });

  it('writes nulls empty, arrays joined, dates in ISO 8601, numbers and booleans as they are', () => {
    expect(toCell(null)).toBe('');
    expect(toCell(undefined)).toBe('');
    expect(toCell(['a', 'b', 'c'])).toBe('a; b; c');
    expect(toCell([])).toBe('');
    expect(toCell(['=x', 'y'])).toBe("'=x; y");
    expect(toCell(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05.000Z');
    expect(toCell(-3)).toBe('-3');
    expect(toCell(false)).toBe('false');
    expect(toCell('-3')).toBe("'-3");
  });

  it('takes the columns from the DTO: own fields first, then inherited, without nested objects', () => {
    expect(csvColumnsOf(ChildDto)).toEqual(['endpointId', 'kind', 'days', 'certUse', 'sans']);
    expect(
      toRecord({ endpointId: 'e', kind: 'a', days: null, certUse: '@x', sans: ['s1', 's2'], details: { a: 1 } }, csvColumnsOf(ChildDto)),
    ).toEqual(['e', 'a', '', "'@x", 's1; s2']);
  });
});

describe('the CSV writer', () => {
  const write = async (records: string[][]): Promise<string> => {
    const writer = csvWriter(['a', 'b']);
    const chunks: Buffer[] = [];
    writer.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve, reject) => writer.on('end', resolve).on('error', reject));
    for (const record of records) writer.write(record);
    writer.end();
    await ended;
    return Buffer.concat(chunks).toString('utf8');
  };

  it('quotes every cell holding a bare LF or CR, so no line break inside a cell starts a row', async () => {
    const records = [
      ['cn\n=1+2', 'x'],
      ['cr\r@SUM(A1)', 'lf and cr\r\n-3'],
      ['plain', ''],
    ];
    const text = await write(records.map((record) => record.map(toCell)));
    expect(text).toBe('a,b\r\n"cn\n=1+2",x\r\n"cr\r@SUM(A1)","lf and cr\r\n-3"\r\nplain,\r\n');
    // Read back by a parser that takes LF and CR alone as line ends too, as spreadsheets do.
    expect(parse(text, { record_delimiter: ['\r\n', '\n', '\r'] })).toEqual([['a', 'b'], ...records]);
  });

  it('quotes cells holding the delimiter or a quote, as RFC 4180 asks', async () => {
    expect(await write([['a, b', 'say "hi"']])).toBe('a,b\r\n"a, b","say ""hi"""\r\n');
  });
});

describe('export format negotiation', () => {
  const request = (format: unknown, accept?: string) => ({
    query: format === undefined ? {} : { format },
    accepts: (types: string[]) => {
      if (!accept) return types[0];
      const wanted = accept.split(',').map((part) => part.split(';')[0].trim());
      return types.find((type) => wanted.includes(type) || wanted.includes('*/*')) ?? false;
    },
  });

  it('lets format decide, then Accept', () => {
    expect(negotiateExportFormat(request('csv') as never)).toBe('csv');
    expect(negotiateExportFormat(request('json', 'text/csv') as never)).toBe('json');
    expect(negotiateExportFormat(request(undefined, 'text/csv') as never)).toBe('csv');
    expect(negotiateExportFormat(request(undefined, '*/*') as never)).toBe('json');
    expect(negotiateExportFormat(request(undefined) as never)).toBe('json');
  });
});
