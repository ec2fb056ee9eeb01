import type { ResultOutcome, ScanResult } from '@certkeeper/domain/protocol';

// What the result services share: a result that passed the checks, and how each reports its outcome.

/** An endpoint deleted between the assignment check and the transaction. */
export const GONE = { code: 404 as const, error: 'no endpoint has this id' };

/** A result that passed the edge and assignment checks, with its place in the post. */
export type Accepted<T extends ScanResult> = { index: number; result: T };

/** Records the outcome of the result at this place in the post. */
export type Settle = (index: number, outcome: ResultOutcome) => void;
