import { randomBytes } from 'node:crypto';

/**
 * Tokens that need only be unique (a lock holder releases its own lock and no other; a fill is completed by the one
 * that began it): an id drawn once per source and a counter, instead of random bytes on every hop.
 */
export function uniqueTokens(): () => string {
  const prefix = randomBytes(12).toString('base64url');
  let count = 0;
  return () => `${prefix}.${(count += 1)}`;
}
