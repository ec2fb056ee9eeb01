/** Escapes LIKE wildcards so user text matches literally (PostgreSQL's default escape is \\). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A substring search (`search_text LIKE '%q%'`, answered by a trigram index) paged in name order.
 * PostgreSQL may instead walk the name's index and test every row until the page is full: a good
 * bet were the matches spread evenly along that order, but the matches of a name search sit
 * together, wherever the name falls, so the walk may read most of the table (60 ms for one search
 * at 100,000 certificates, against 2 ms through the trigram index: docs/performance.md, "Reads").
 * The planner takes that walk when it expects many matches, and it estimates them from a sample of
 * a hundred values: one sampled name containing the text makes it a hundredth of the table.
 *
 * So when the count (from the count cache) says the matches are at most `sortMatchesUpTo`, the
 * page is sorted from the matches themselves; above that, the walk finds a page soon enough and
 * the planner keeps its choice. Tests lower the bound.
 */
export const substringSearchLimits = { sortMatchesUpTo: 10_000 };

export type SortKeyType = 'text' | 'timestamptz';

/** Whether a substring search with `matches` matches has its page sorted from them. */
export function searchSortsMatches(matches: number): boolean {
  return matches <= substringSearchLimits.sortMatchesUpTo;
}

/**
 * `column` as the first sort key of a substring search with `matches` matches: as it is, or, for
 * few matches, as unindexedSortKey, so that the matches are read first and sorted.
 */
export function searchSortKey(column: string, matches: number, type: SortKeyType = 'text'): string {
  return searchSortsMatches(matches) ? unindexedSortKey(column, type) : column;
}

/** `column` as an expression no index serves that keeps its value, nulls and collation (`|| ''` for text, `+ interval '0'` for a timestamp). */
export function unindexedSortKey(column: string, type: SortKeyType = 'text'): string {
  return type === 'text' ? `(${column} || '')` : `(${column} + interval '0')`;
}
