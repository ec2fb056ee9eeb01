// xs:dateTime: an optional time zone, fractional seconds of any precision.
const XS_DATE_TIME = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * ISO 8601 in UTC ('2030-01-01T00:00:00.000Z') when the value is an xs:dateTime JavaScript can
 * represent, otherwise the value as given, so nothing the document says is lost. SAML requires
 * times in UTC, so a value without a time zone is read as UTC, not as the machine's local time.
 */
export function normaliseDateTime(value: string): string {
  const match = XS_DATE_TIME.exec(value);
  if (match === null) return value;
  const time = Date.parse(match[1] === undefined ? `${value}Z` : value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/**
 * The earlier of two validUntil values, so an entity never outlives the aggregate that carries it.
 * A value that is not a date loses to one that is; between two such values the inner one is kept.
 */
export function earlierValidUntil(outer: string | null, inner: string | null): string | null {
  if (outer === null) return inner;
  if (inner === null) return outer;
  const outerTime = Date.parse(outer);
  const innerTime = Date.parse(inner);
  if (Number.isNaN(outerTime)) return inner;
  if (Number.isNaN(innerTime)) return outer;
  return outerTime < innerTime ? outer : inner;
}
