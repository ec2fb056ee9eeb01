import type { RotationEntity } from './rotation.entity';
import type { RotationDto } from './rotations.dto';

export function toRotation(row: RotationEntity): RotationDto {
  return {
    id: row.id,
    certUse: row.certUse,
    at: row.at.toISOString(),
    fromFingerprint: row.fromFingerprint,
    toFingerprint: row.toFingerprint,
    changes: row.changes,
    regressions: row.regressions,
  };
}
