import type { Schemas } from '../../api/client';

/** One CSV record and the line of the file it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A file the import cannot read, with the sentence that says why. */
export class CsvProblem extends Error {}

/**
 * RFC 4180: fields separated by commas, records by CRLF (LF and a lone CR accepted too), fields
 * quoted with `"` when they hold a comma, a quote (doubled) or a line break. A UTF-8 byte order
 * mark is dropped; blank lines are skipped. A quote inside an unquoted field or an unclosed quote
 * is refused, naming its line: guessing would import shifted columns.
 */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  // True once the current field started with a quote and that quote was closed.
  let closed = false;
  let index = 0;

  const endField = () => {
    fields.push(field);
    field = '';
    closed = false;
  };
  const endRecord = () => {
    endField();
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: recordLine, fields });
    fields = [];
  };

  while (index < source.length) {
    const char = source[index];
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        quoted = false;
        closed = true;
      } else {
        if (char === '\n' || (char === '\r' && source[index + 1] !== '\n')) line += 1;
        field += char;
      }
      index += 1;
      continue;
    }
    if (char === ',') endField();
    else if (char === '\r' || char === '\n') {
      endRecord();
      if (char === '\r' && source[index + 1] === '\n') index += 1;
      line += 1;
      recordLine = line;
    } else if (char === '"') {
      if (field !== '' || closed) throw new CsvProblem(`Line ${line}: a quote inside a field that does not start with one.`);
      quoted = true;
    } else {
      if (closed) throw new CsvProblem(`Line ${line}: text after the closing quote of a field.`);
      field += char;
    }
    index += 1;
  }
  if (quoted) throw new CsvProblem(`Line ${recordLine}: a quoted field is never closed.`);
  endRecord();
  return records;
}

/** The columns of an import file: the fields of an endpoint record (POST /api/v1/endpoints). */
export const COLUMNS = [
  'name',
  'type',
  'dnsName',
  'port',
  'ipAddress',
  'starttls',
  'metadataUrl',
  'scannerId',
  'enabled',
  'scanExempt',
  'notes',
  'tags',
  'ignoredFindings',
] as const;
type Column = (typeof COLUMNS)[number];
export const EXPECTED_HEADER = COLUMNS.join(',');
/** Several tags (or ignored finding codes) in one cell, as the CSV export writes them. */
const TAG_SEPARATOR = ';';

export interface ImportRow {
  line: number;
  record: Schemas['EndpointInputDto'];
}

/**
 * Columns the endpoint CSV export (GET /api/v1/endpoints?format=csv) writes that the server sets
 * itself: skipped, so that an exported file can be imported elsewhere as it is.
 */
const SERVER_SET_COLUMNS = [
  'id',
  'errorSince',
  'lastScannedAt',
  'lastScanError',
  'chainComplete',
  'resolvedIp',
  'soonestNotAfter',
  'daysRemaining',
  'findings',
  'createdAt',
  'updatedAt',
] as const;

const sameName = (a: string, b: string) => a.toLowerCase() === b.trim().toLowerCase();

/**
 * The endpoint records of a parsed file, each with its line, and the server-set columns skipped.
 * The header decides the columns (any order, any case); a file without one, with a column the API
 * does not take, or with a row of another width is refused whole before anything is sent.
 */
export function toImportRows(records: CsvRecord[]): { rows: ImportRow[]; skipped: string[] } {
  if (records.length === 0) throw new CsvProblem('The file is empty: it needs a header line and one line per endpoint.');
  const [header, ...rows] = records;
  const columns = header.fields.map((name) => COLUMNS.find((column) => sameName(column, name)));
  const skipped = header.fields.filter((name) => SERVER_SET_COLUMNS.some((column) => sameName(column, name)));
  const unknown = header.fields.filter((name, position) => columns[position] === undefined && !skipped.includes(name));
  if (unknown.length === header.fields.length)
    throw new CsvProblem(`The first line is not a header: it names none of the columns ${COLUMNS.join(', ')}.`);
  if (unknown.length > 0)
    throw new CsvProblem(
      `The header names columns an endpoint does not have: ${unknown.join(', ')}. The columns are ${COLUMNS.join(', ')}.`,
    );
  const repeated = columns.find((column, position) => column !== undefined && columns.indexOf(column) !== position);
  if (repeated) throw new CsvProblem(`The header names the column ${repeated} twice.`);
  if (!columns.includes('name')) throw new CsvProblem('The header has no name column: every endpoint needs a name.');
  if (rows.length === 0) throw new CsvProblem('The file has a header but no endpoint lines.');

  const importRows = rows.map(({ line, fields }) => {
    if (fields.length !== columns.length)
      throw new CsvProblem(
        `Line ${line} has ${fields.length} ${fields.length === 1 ? 'field' : 'fields'} where the header has ${columns.length}.`,
      );
    const record: Record<string, unknown> = {};
    columns.forEach((column, position) => {
      const value = column === undefined ? undefined : cellValue(column, fields[position]);
      if (column !== undefined && value !== undefined) record[column] = value;
    });
    // Cells that do not convert (port "https", enabled "maybe") go through as written, so that
    // the API refuses that row alone with its own sentence naming the field.
    return { line, record: record as Schemas['EndpointInputDto'] };
  });
  return { rows: importRows, skipped };
}

const TRUE_WORDS = ['true', 'yes', '1'];
const FALSE_WORDS = ['false', 'no', '0'];

/** A cell as the API's record takes it; an empty cell leaves the field to its default. */
function cellValue(column: Column, raw: string): unknown {
  const cell = column === 'notes' ? raw : raw.trim();
  if (cell === '') return undefined;
  switch (column) {
    case 'port':
      return /^\d+$/.test(cell) ? Number(cell) : cell;
    case 'enabled':
    case 'scanExempt': {
      const word = cell.toLowerCase();
      return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : cell;
    }
    case 'tags':
    case 'ignoredFindings':
      return cell
        .split(TAG_SEPARATOR)
        .map((tag) => tag.trim())
        .filter((tag) => tag !== '');
    case 'type':
      return cell.toLowerCase();
    // An empty cell (how the export writes null) left the field to its default, implicit TLS
    // (above); the API names a value it does not know.
    case 'starttls':
      return cell.toLowerCase();
    case 'name':
    case 'dnsName':
    case 'ipAddress':
    case 'metadataUrl':
    case 'scannerId':
    case 'notes':
      return cell;
  }
}

/** The API takes up to 20,000 rows and 10 MiB a request; smaller batches keep the progress moving. */
const ROWS_PER_BATCH = 500;
const BYTES_PER_BATCH = 4 * 1024 * 1024;

/** The rows cut into requests within the route's limits, in file order. */
export function batches(rows: ImportRow[]): ImportRow[][] {
  const encoder = new TextEncoder();
  const result: ImportRow[][] = [];
  let current: ImportRow[] = [];
  let bytes = 2;
  for (const row of rows) {
    const size = encoder.encode(JSON.stringify(row.record)).length + 1;
    if (current.length > 0 && (current.length >= ROWS_PER_BATCH || bytes + size > BYTES_PER_BATCH)) {
      result.push(current);
      current = [];
      bytes = 2;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}
