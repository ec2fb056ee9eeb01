/** The CSV is damaged beyond reading, e.g. a quoted field that never ends (a download cut short). */
export class CsvSyntaxError extends Error {
  override readonly name: string = 'CsvSyntaxError';
}

const FIELD_END = /[,\r\n]/g;

/**
 * Splits RFC 4180 CSV into rows of fields: quoted fields may hold commas, doubled quotes and line
 * breaks; records end in CRLF, LF or a lone CR. Blank lines are dropped, so a trailing newline or
 * an empty line between records does not produce an empty record. A leading UTF-8 BOM is removed.
 * Tolerates text after a closing quote (`"a"b` reads as `ab`), as spreadsheet exports do.
 */
export function readCsv(text: string): string[][] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let position = 0;
  for (;;) {
    const field = readField(input, position);
    row.push(field.value);
    if (input[field.end] === ',') {
      position = field.end + 1;
      continue;
    }
    if (!isBlank(row)) rows.push(row);
    if (field.end >= input.length) return rows;
    row = [];
    position = field.end + (input.startsWith('\r\n', field.end) ? 2 : 1);
  }
}

interface Field {
  value: string;
  /** Index of the character that ended the field: a comma, a line break, or the end of the input. */
  end: number;
}

function readField(input: string, start: number): Field {
  if (input[start] !== '"') return readUnquoted(input, start);
  const quoted = readQuoted(input, start);
  if (quoted.end >= input.length || isFieldEnd(input[quoted.end])) return quoted;
  const rest = readUnquoted(input, quoted.end);
  return { value: quoted.value + rest.value, end: rest.end };
}

function readUnquoted(input: string, start: number): Field {
  FIELD_END.lastIndex = start;
  const end = FIELD_END.exec(input)?.index ?? input.length;
  return { value: input.slice(start, end), end };
}

/** `start` is the opening quote; the returned end is the character after the closing quote. */
function readQuoted(input: string, start: number): Field {
  const parts: string[] = [];
  let position = start + 1;
  for (;;) {
    const quote = input.indexOf('"', position);
    if (quote === -1) throw new CsvSyntaxError('A quoted CSV field is not closed: the file is probably truncated.');
    parts.push(input.slice(position, quote));
    if (input[quote + 1] !== '"') return { value: parts.join(''), end: quote + 1 };
    parts.push('"');
    position = quote + 2;
  }
}

function isFieldEnd(character: string): boolean {
  return character === ',' || character === '\r' || character === '\n';
}

function isBlank(row: string[]): boolean {
  return row.every((field) => field.trim() === '');
}
