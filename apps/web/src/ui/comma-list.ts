/** A comma-separated field (tags, group names) as the list the API takes: each item trimmed, empty ones left out. */
export const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
