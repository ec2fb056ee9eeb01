import type { ValidationError, ValidatorOptions } from 'class-validator';

// What the per-item pipes of the scanner protocol share: a post's envelope is checked as a whole
// (400 for the request), then each item on its own, so one malformed item is refused next to the
// others instead of failing the batch (docs/api-contract.md section 2).

/** The envelope's rules: its own fields only, the items are checked one by one afterwards. */
export const ENVELOPE_RULES: ValidatorOptions = { stopAtFirstError: true, validationError: { target: false, value: false } };

export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One sentence per problem, nested fields named by their path (`tlsProfile.versions.0.version ...`). */
export function messagesOf(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => message.replace(error.property, path));
    return [...own, ...messagesOf(error.children ?? [], path)];
  });
}

/** A string field of a raw item, cut short, for naming a refused item even when the rest is malformed. */
export const idOf = (fields: unknown, name: string): string =>
  isObject(fields) && typeof fields[name] === 'string' ? fields[name].slice(0, 100) : '';
