/**
 * The PostgreSQL NOTIFY channel that tells every API process (every replica) that a scanner may
 * have work due now: an endpoint was created or changed, or a scan was requested. The payload is
 * the endpoint's scanner id, empty for an endpoint with no scanner (the default scanner's work).
 * A NOTIFY sent in a transaction is delivered at its commit, so a woken long-poll sees the row.
 * See docs/decisions/0012-scan-now.md.
 */
export const SCAN_WORK_CHANNEL = 'certkeeper_scan_work';
