/**
 * A module (or any costly value) made the first time it is asked for, then kept. For the heavy
 * libraries a process may never need: the scanner agent loads the domain library for its protocol
 * types and checks, and should not pay at start-up for certificate parsing, PKCS #7 or HTML
 * rendering it does not do (docs/performance.md, "The agent").
 */
export function loadedOnFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
