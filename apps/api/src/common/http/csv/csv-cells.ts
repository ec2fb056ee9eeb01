import type { Type } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { stringify, type Stringifier } from 'csv-stringify';

/**
 * What a spreadsheet would read as the start of a formula (docs/api-contract.md section 11),
 * including the full-width `＝ ＋ － ＠` that some spreadsheets fold to their ASCII forms.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Prefixes `'` to text a spreadsheet would otherwise evaluate: `=HYPERLINK(...)` becomes `'=HYPERLINK(...)`. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One CSV cell from one JSON field value: null is an empty cell, an array its elements joined with
 * `; `, a date its ISO 8601 form. Text is neutralised against formula injection; numbers and
 * booleans are the server's own and written as they are (a `daysRemaining` of -3 stays `-3`).
 */
export function toCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return neutraliseFormula(value);
  if (Array.isArray(value)) return neutraliseFormula(value.map(elementText).join('; '));
  // Not a column (csvColumnsOf leaves nested objects out), but never '[object Object]'.
  return neutraliseFormula(JSON.stringify(value));
}

function elementText(element: unknown): string {
  if (element === null || element === undefined) return '';
  return typeof element === 'string' ? element : JSON.stringify(element);
}

interface PropertyMetadata {
  type?: unknown;
  isArray?: boolean;
}

const SCALAR_TYPES: unknown[] = [String, Number, Boolean, Date, 'string', 'number', 'integer', 'boolean', undefined];

/**
 * The CSV columns of a response DTO: its JSON field names, leaving out nested objects and arrays of
 * objects, read from the same `@ApiProperty` metadata that documents the JSON, so the two cannot
 * drift apart. Order: the DTO's own properties in declaration order, then those it inherits, as the
 * mapping functions build them (`toActiveCertificate` puts the endpoint before the certificate).
 */
export function csvColumnsOf(dto: Type<unknown>): string[] {
  const columns = declaredOwnFirst(dto.prototype as object).filter((name) => {
    const metadata = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype as object, name) ?? {}) as PropertyMetadata;
    // An enum property carries no type of its own (or String); a class or a lazy type function is a nested DTO.
    return SCALAR_TYPES.includes(metadata.type);
  });
  if (columns.length === 0) throw new Error(`${dto.name} documents no scalar properties to export as CSV.`);
  return columns;
}

function declaredOwnFirst(prototype: object | null): string[] {
  if (prototype === null || prototype === Object.prototype) return [];
  const inherited = declaredOwnFirst(Object.getPrototypeOf(prototype) as object | null);
  const all = ((Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[]).map((key) =>
    key.replace(/^:/, ''),
  );
  return [...new Set([...all.filter((name) => !inherited.includes(name)), ...inherited])];
}

/** One CSV record (cells in column order) from one JSON item. */
export function toRecord(item: Record<string, unknown>, columns: readonly string[]): string[] {
  return columns.map((column) => toCell(item[column]));
}

/**
 * The writer of every export: RFC 4180, a header row of `columns`, CRLF line ends. csv-stringify
 * quotes a cell holding a comma, a quote or the CRLF record delimiter, but not a bare LF or CR,
 * which spreadsheets read as a line end too: a common name `cn\n=1+2` would start a row whose
 * first cell is a formula the `'` prefix never saw. So every cell holding either is quoted.
 */
export function csvWriter(columns: readonly string[]): Stringifier {
  return stringify({ header: true, columns: [...columns], record_delimiter: '\r\n', quoted_match: /[\r\n]/ });
}
