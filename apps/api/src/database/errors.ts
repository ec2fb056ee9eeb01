import { QueryFailedError } from 'typeorm';

const UNIQUE_VIOLATION = '23505';

/** True when `error` is PostgreSQL's unique violation, optionally of one named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === UNIQUE_VIOLATION && (constraint === undefined || driverError.constraint === constraint);
}

/** Socket failures that mean PostgreSQL cannot be reached (down, restarting, failed over, cut off). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server that is going away, not yet back or full: class 08 (connection
 * exception), 57P01 admin_shutdown (a fast shutdown ends every session), 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery) and 53300
 * too_many_connections (every slot taken; one frees up as other clients leave).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/**
 * node-postgres reports a dropped connection or a connect deadline only in its message. A database
 * closed to connections (ALLOW_CONNECTIONS false, as during maintenance) refuses with 55000,
 * object_not_in_prerequisite_state, a class too broad to match on: its message says which.
 */
const UNREACHABLE_MESSAGES = [
  'is not currently accepting connections',
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'connection timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
];

/**
 * True when `error` says the database is unreachable rather than that a statement was wrong: the
 * caller can do nothing but retry later (docs/api-contract.md, health and database outages).
 * TypeORM wraps the driver's error in QueryFailedError; connecting fails with the socket's error.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (!(cause instanceof Error)) return false;
  const { code } = cause as { code?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08'))) return true;
  // Node reports a refused connection to every address of a name as one AggregateError.
  if (cause instanceof AggregateError && cause.errors.some((inner) => isDatabaseUnreachable(inner))) return true;
  return UNREACHABLE_MESSAGES.some((message) => cause.message.includes(message));
}
