import { isScannerOnline } from '@certkeeper/domain';
import type { ScannerEntity } from './scanner.entity';
import type { ScannerResponseDto } from './scanners.dto';

/** `now` decides whether the scanner counts as online. */
export function toScannerResponse(scanner: ScannerEntity, now: Date): ScannerResponseDto {
  return {
    id: scanner.id,
    name: scanner.name,
    isDefault: scanner.isDefault,
    scanCronExpression: scanner.scanCronExpression,
    scanConcurrency: scanner.scanConcurrency,
    createdAt: scanner.createdAt.toISOString(),
    lastUsedAt: scanner.lastUsedAt?.toISOString() ?? null,
    online: isScannerOnline(scanner.lastUsedAt, scanner.scanCronExpression, now),
  };
}
