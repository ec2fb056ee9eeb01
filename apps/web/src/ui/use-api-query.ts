import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage, unreachable } from '../api/client';

/** What an openapi-fetch call resolves to, reduced to what a screen needs. */
export interface ApiResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface QueryState<T> {
  data: T | undefined;
  /** The API's own sentence when the last load failed. */
  error: string | null;
  loading: boolean;
  /** Loads again (after a change the screen made, or on a timer). */
  reload: () => void;
  /** The response of the last load (headers such as X-Total-Count). */
  response: Response | undefined;
}

/**
 * Loads one resource for a screen and loads it again when `key` changes or `reload()` is called;
 * the answer of an outdated request is dropped. The server is the source of truth: screens keep
 * no copy of their own beyond what this returns.
 */
export function useApiQuery<T>(key: string, load: () => Promise<ApiResult<T>>): QueryState<T> {
  const [state, setState] = useState<Omit<QueryState<T>, 'reload'>>({
    data: undefined,
    error: null,
    loading: true,
    response: undefined,
  });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    loadRef
      .current()
      .then((result) => {
        if (!current) return;
        if (result.data !== undefined) setState({ data: result.data, error: null, loading: false, response: result.response });
        else setState({ data: undefined, error: errorMessage(result.error, result.response), loading: false, response: result.response });
      })
      .catch((error: unknown) => {
        if (!current) return;
        setState({ data: undefined, error: unreachable(error), loading: false, response: undefined });
      });
    return () => {
      current = false;
    };
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}
