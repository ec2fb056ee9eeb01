import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth/auth-context';

/** The API's defaults until configured (docs/api-contract.md section 6), used when the role may not read the setting. */
export const DEFAULT_THRESHOLDS = [30, 14, 7, 1];

const ThresholdsContext = createContext<number[]>(DEFAULT_THRESHOLDS);
const ReplaceThresholdsContext = createContext<(stored: number[]) => void>(() => undefined);

export function useThresholds(): number[] {
  return useContext(ThresholdsContext);
}

/** For the screen that changes the thresholds: expiry colours follow the stored list at once. */
export function useReplaceThresholds(): (stored: number[]) => void {
  return useContext(ReplaceThresholdsContext);
}

/** The configured alert thresholds (settings:view), else the defaults. */
export function ThresholdsProvider({ children }: { children: ReactNode }) {
  const { can } = useAuth();
  const mayRead = can('settings:view');
  const [thresholds, setThresholds] = useState(DEFAULT_THRESHOLDS);
  useEffect(() => {
    if (!mayRead) return;
    let current = true;
    void api.GET('/api/v1/settings/alert-thresholds').then(({ data }) => {
      if (current && data && data.length > 0) setThresholds([...data].sort((a, b) => b - a));
    });
    return () => {
      current = false;
    };
  }, [mayRead]);
  const replace = useCallback((stored: number[]) => setThresholds([...stored].sort((a, b) => b - a)), []);
  return (
    <ReplaceThresholdsContext.Provider value={replace}>
      <ThresholdsContext.Provider value={thresholds}>{children}</ThresholdsContext.Provider>
    </ReplaceThresholdsContext.Provider>
  );
}
