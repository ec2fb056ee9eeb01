/** What a tag is, in the words every refusal uses (docs/api-contract.md section 4). */
export const TAG_RULE = '1 to 100 printable characters (category:value or value)';

// Printable characters only: no control or format characters, no line or paragraph separators.
const TAG_PATTERN = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{1,100}$/u;

/** A tag: `category:value` or a bare `value`, 1..100 printable characters, compared exactly. */
export function isTag(value: unknown): value is string {
  return typeof value === 'string' && TAG_PATTERN.test(value);
}

/** The sentence refusing a list of tags whose `index`th is none: `tags[1] must be a string of ...`. */
export function tagProblem(index: number): string {
  return `tags[${index}] must be a string of ${TAG_RULE}`;
}

/** A tag list with repeats kept once, in first-seen order. */
export function uniqueTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}
