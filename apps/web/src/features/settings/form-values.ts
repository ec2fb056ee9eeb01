/** Empty text is "not set" (null) for the API; anything else is sent trimmed. */
export const orNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());
