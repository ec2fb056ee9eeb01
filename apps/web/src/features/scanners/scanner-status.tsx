/**
 * Whether a scanner's agent calls in (`online`, docs/api-contract.md section 3): a word and a
 * shape, so it reads without colour. Offline covers a scanner that never called in as well as one
 * that went quiet; `lastUsedAt` tells which.
 */
export function ScannerStatus({ online, lastUsedAt }: { online: boolean; lastUsedAt: string | null }) {
  const word = online ? 'Online' : lastUsedAt === null ? 'Offline (never called in)' : 'Offline';
  return (
    <span className={`scanner-status ${online ? 'scanner-online' : 'scanner-offline'}`}>
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
        {online ? (
          <circle cx="8" cy="8" r="6" fill="currentColor" />
        ) : (
          <circle cx="8" cy="8" r="5.5" fill="none" stroke="currentColor" strokeWidth="2" />
        )}
      </svg>
      {word}
    </span>
  );
}
