/**
 * Reads until `done` accepts what was read, or `timeoutMs` passes; returns the last reading. For
 * what a notification brings: another process's commit reaches this one in milliseconds, not
 * before the next request.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}
