// Imported by its own path (`@certkeeper/net/heap-growth`), first thing in each app's main: the
// library's index loads libs/domain, 65 ms that the API's start would pay before its database starts.
import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. By default it grows by up to several times before it collects again: the API, whose
 * live heap is about 55 MB, then idled at 150 MB and peaked above 300 MB under eight concurrent
 * readers, and the agent's resident size swung by a fifth inside every scan cycle. At 30 % both
 * collect sooner, at the cost of more frequent full collections (measured in docs/performance.md,
 * "Memory"). It is a growth factor, not a cap: work that needs more heap still gets it, unlike
 * --max-old-space-size.
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * Applies HEAP_GROWING_PERCENT unless the operator chose a value on node's command line (Node
 * refuses the flag in NODE_OPTIONS). V8 reads it at every full collection, so setting it at
 * start-up takes effect.
 */
export function limitHeapGrowth(): void {
  if (!process.execArgv.some((option) => option.includes('heap-growing-percent'))) {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
}
