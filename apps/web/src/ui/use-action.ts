import { useCallback, useState } from 'react';
import { errorMessage, unreachable } from '../api/client';
import type { ApiResult } from './use-api-query';

export interface ActionState {
  /** True while a call runs: the screen disables the buttons that would start another. */
  busy: boolean;
  /** The API's own sentence when the last call failed, or the sentence for an unreachable server. */
  error: string | null;
  /**
   * Runs one call to the API; on a 2xx answer `onSuccess` gets its body and the promise resolves
   * true, otherwise `error` holds the sentence to show next to the action and it resolves false.
   */
  run: <T>(call: () => Promise<ApiResult<T>>, onSuccess?: (data: T) => void) => Promise<boolean>;
  clearError: () => void;
}

/**
 * One user action against the API (save, delete, regenerate…): busy while it runs, the API's
 * sentence when it refuses. Every screen words failures the same way through this.
 */
export function useAction(): ActionState {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T>(call: () => Promise<ApiResult<T>>, onSuccess?: (data: T) => void): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const { data, error: apiError, response } = await call();
      if (!response.ok) {
        setError(errorMessage(apiError, response));
        return false;
      }
      onSuccess?.(data as T);
      return true;
    } catch (caught) {
      setError(unreachable(caught));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  return { busy, error, run, clearError };
}
