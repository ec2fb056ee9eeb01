import type * as PeculiarX509 from '@peculiar/x509';
import { loadedOnFirstUse } from '../loaded-on-first-use';

/**
 * @peculiar/x509, loaded the first time a certificate is parsed: with its polyfill it is most of
 * the domain library's start-up cost, which a scanner agent's host cycle never needs
 * (docs/performance.md). It registers its algorithms with tsyringe, which refuses to load unless a
 * Reflect metadata polyfill is installed; the API loads one for Nest, the scanner agent and the
 * domain's own tests do not. Reach @peculiar/x509 through this module only, so the polyfill comes first.
 */
export const peculiarX509 = loadedOnFirstUse(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start-up
  require('reflect-metadata');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start-up
  return require('@peculiar/x509') as typeof PeculiarX509;
});

export type { PeculiarX509 };
