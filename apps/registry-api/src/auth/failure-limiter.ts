/**
 * Counts failed authentications per client address in fixed one-minute windows. Every failed attempt with
 * credentials costs a scrypt run (tens of milliseconds of CPU), so an address that keeps failing is refused before
 * hashing: guessing secrets is slowed down, and so is burning the service's CPU.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxTracked = 10_000,
  ) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    if (this.maxFailures === 0) return 0;
    const window = this.windows.get(address);
    if (!window) return 0;
    const elapsed = this.now() - window.start;
    if (elapsed >= this.windowMs) {
      this.windows.delete(address);
      return 0;
    }
    return window.failures >= this.maxFailures ? Math.ceil((this.windowMs - elapsed) / 1000) : 0;
  }

  recordFailure(address: string): void {
    if (this.maxFailures === 0) return;
    const now = this.now();
    const window = this.windows.get(address);
    if (window && now - window.start < this.windowMs) {
      window.failures += 1;
      return;
    }
    // Bounded memory under a spray of addresses: forgetting old windows only errs towards letting attempts through.
    if (this.windows.size >= this.maxTracked) this.windows.clear();
    this.windows.set(address, { start: now, failures: 1 });
  }
}
