import { CsvError, type Options, parse } from 'csv-parse/sync';

/** The CSV is damaged beyond reading, e.g. a quoted field that never ends (a download cut short). */
export class CsvSyntaxError extends Error {
  override readonly name: string = 'CsvSyntaxError';
}

/**
 * The dialect of CCADB reports and of their re-saved copies, for csv-parse. csv-parse's default
 * discovers one record delimiter from the first it meets; a report may mix them (a lone CR after a
 * CRLF header), so all three are listed, longest first.
 */
const DIALECT: Options = {
  bom: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  // Short rows read as they are; the caller reads absent cells as ''.
  relax_column_count: true,
  // Blank lines, and lines of blank fields only, are not records.
  skip_records_with_empty_values: true,
  // A stray quote is kept as text rather than failing the whole report: `a"b` reads as `a"b`, and
  // text after a closing quote keeps both quotes (`"a"b` reads as `"a"b`).
  relax_quotes: true,
};

/**
 * Splits RFC 4180 CSV into rows of fields: quoted fields may hold commas, doubled quotes and line
 * breaks; records end in CRLF, LF or a lone CR. Blank lines are dropped, so a trailing newline or
 * an empty line between records does not produce an empty record. A leading UTF-8 BOM is removed.
 *
 * @throws CsvSyntaxError when a quoted field never closes (the file is probably truncated).
 */
export function readCsv(text: string): string[][] {
  try {
    return parse(text, DIALECT);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new CsvSyntaxError('A quoted CSV field is not closed: the file is probably truncated.');
    }
    throw new CsvSyntaxError(error.message);
  }
}
