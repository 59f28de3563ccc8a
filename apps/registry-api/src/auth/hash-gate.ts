import { DomainError } from '@dmrv/errors';
import { AdmissionGate } from '@dmrv/rate-limit';

export class AuthenticationBusyError extends DomainError {
  readonly retryAfterSeconds = 1;

  constructor() {
    super('AUTH_BUSY', 'Too many authentications in progress; retry shortly', 503);
  }
}

/**
 * Runs at most `concurrency` secret hashes at once and lets at most `queueLimit` more wait; any further one fails at
 * once with `AuthenticationBusyError` (503, Retry-After: 1). scrypt takes about 60 ms of a libuv thread and there are
 * only four of them (DNS lookups for new database connections need them too): without a bound, a burst of 500
 * attempts from many addresses queued 500 hashes, and a legitimate client's first request waited behind all of them.
 * With it, a request either starts its hash within `queueLimit / concurrency` hash times or is told to retry.
 */
export class HashGate extends AdmissionGate {
  constructor(concurrency: number, queueLimit: number) {
    super({ concurrency, queueLimit, refuse: () => new AuthenticationBusyError() });
  }
}
