import type { Schemas } from '../../api/client';

/** The scanner a network is on; a network whose scanner was deleted is not swept until assigned one. */
export function ScannerName({ scannerId, scanners }: { scannerId: string | null; scanners: Schemas['ScannerResponseDto'][] | undefined }) {
  if (scannerId === null) return <span className="expiry-expired">none: not swept until a scanner is assigned</span>;
  return <>{scanners?.find((scanner) => scanner.id === scannerId)?.name ?? <span className="mono">{scannerId}</span>}</>;
}
