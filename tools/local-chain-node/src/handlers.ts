import { cosmosHandlers } from './cosmos-handlers';
import { claimsHandlers, entityAndIidHandlers, tokenHandlers } from './ixo-handlers';
import { SeedData } from './seed';

import type { QueryHandlers } from './handler-kit';

export type { QueryHandler, QueryHandlers } from './handler-kit';

/** Every module's handlers over the seed data. */
export function buildHandlers(seed: SeedData): QueryHandlers {
  return {
    ...entityAndIidHandlers(seed),
    ...claimsHandlers(seed),
    ...tokenHandlers(seed),
    ...cosmosHandlers(),
  };
}
