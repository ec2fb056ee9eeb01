import type { Provider } from '@nestjs/common';
import { ExpiryFacts } from './expiry-facts';
import { RevocationFacts } from './revocation-facts';
import type { FactLoader } from './fact-loader';
import { RenewalFacts } from './renewal-facts';
import { RenewalInfoFacts } from './renewal-info-facts';

/** The fact-loader registry: a new event family whose source reads new facts adds its loader class here. */
const FACT_LOADER_CLASSES = [
  ExpiryFacts,
  // renewal_overdue (docs/api-contract.md section 15)
  RenewalInfoFacts,
  // rotation_regression and renewal_not_deployed (docs/api-contract.md section 16)
  RenewalFacts,
  // Revocation (docs/api-contract.md section 18).
  RevocationFacts,
];

export const FACT_LOADERS = Symbol('FACT_LOADERS');

export const factLoaderProviders: Provider[] = [
  ...FACT_LOADER_CLASSES,
  { provide: FACT_LOADERS, inject: FACT_LOADER_CLASSES, useFactory: (...loaders: FactLoader[]): FactLoader[] => loaders },
];
