import { DomainError } from '@dmrv/errors';

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
export class HashGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueLimit: number,
  ) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueLimit) throw new AuthenticationBusyError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await hash();
    } finally {
      // The slot passes straight to the next waiter, so a new arrival can never overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
