/** Empty text is "not set" (null) for the API; anything else is sent trimmed. */
export const orNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());

/** A comma-separated field as the list the API takes, without empty items. */
export const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
