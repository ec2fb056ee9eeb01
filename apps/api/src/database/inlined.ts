import { escapeLiteral } from 'pg';
import type { SqlQuery } from './row-stream';

/**
 * `query` with its values written in as literals (`$n` replaced), so that several statements go
 * to PostgreSQL as one query string in one round trip: the extended protocol, which carries
 * values apart, runs one statement a message. For statements of our own whose text has no `$n`
 * but their parameters, and values of the kinds below; anything else throws rather than guess.
 * Give a parameter whose type the statement cannot infer a cast (`$5::uuid`): a literal in a
 * SELECT list is text.
 */
export function inlined({ text, values }: SqlQuery): string {
  return text.replace(/\$(\d+)/g, (_, position: string) => {
    const index = Number(position) - 1;
    if (index >= values.length) throw new RangeError(`The statement names $${position} and has ${values.length} values.`);
    return literal(values[index]);
  });
}

function literal(value: unknown): string {
  if (value === null) return 'NULL';
  // escapeLiteral doubles quotes and, for a value with a backslash, writes E'...' with it doubled too.
  if (typeof value === 'string') return escapeLiteral(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`;
  throw new TypeError(`A ${typeof value} value cannot be written into a statement.`);
}
