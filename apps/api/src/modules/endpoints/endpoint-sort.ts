/** The endpoint list's sort keys (docs/api-contract.md section 4). */
export const ENDPOINT_SORT_KEYS = ['name', 'daysRemaining', 'lastScannedAt', 'createdAt'] as const;
export type EndpointSortKey = (typeof ENDPOINT_SORT_KEYS)[number];

/** A sort key, or the key with a leading `-` for the reverse order. */
export type EndpointSort = EndpointSortKey | `-${EndpointSortKey}`;

export const ENDPOINT_SORTS: readonly EndpointSort[] = ENDPOINT_SORT_KEYS.flatMap((key) => [key, `-${key}` as const]);
