import { QueryFailedError } from 'typeorm';

const UNIQUE_VIOLATION = '23505';

/** True when `error` is PostgreSQL's unique violation, optionally of one named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === UNIQUE_VIOLATION && (constraint === undefined || driverError.constraint === constraint);
}
