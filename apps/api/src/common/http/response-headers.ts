/**
 * The response headers of the API, as reusable OpenAPI header components (`components.headers`).
 * The OpenAPI description declares `X-Request-Id` and `Retry-After` where they apply; a route that
 * sends `X-Total-Count` names it with `TOTAL_COUNT_HEADERS`.
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: "This request's id (the client's own when it sent a valid one), as in the logs and in the body of a 500.",
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
  },
  'X-Total-Count': {
    description: 'How many rows match; the body holds the window that `limit` and `offset` chose.',
    schema: { type: 'integer', format: 'int64', minimum: 0 },
  },
} as const;

export const headerRef = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The headers of a bare-array list (docs/api-contract.md section 3). */
export const TOTAL_COUNT_HEADERS = { 'X-Total-Count': headerRef('X-Total-Count') };

/** The headers of an answer that asks the client to come back later. */
export const RETRY_AFTER_HEADERS = { 'Retry-After': headerRef('Retry-After') };
