/** Counts in fixed windows per key, with a bound on how many keys are remembered. */
class FixedWindows {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly maxTracked: number,
  ) {}

  /** The key's window if it is still running at `now`. */
  current(key: string, now: number): { start: number; count: number } | undefined {
    const window = this.windows.get(key);
    if (window && now - window.start >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  /** Seconds until the key may try again, or 0 when it may try now. */
  retryAfterSeconds(key: string, now: number): number {
    if (this.limit === 0) return 0;
    const window = this.current(key, now);
    return window && window.count >= this.limit
      ? Math.ceil((this.windowMs - (now - window.start)) / 1000)
      : 0;
  }

  /** Counts one attempt; returns the window it was counted in (to take it back from the same window only). */
  add(key: string, now: number): { start: number; count: number } | undefined {
    if (this.limit === 0) return undefined;
    let window = this.current(key, now);
    if (!window) {
      if (this.windows.size >= this.maxTracked) this.forgetExpired(now);
      // Still full of live windows (a spray from very many sources): forgetting them only errs towards letting
      // attempts through, and the hash gate still bounds the work they cause.
      if (this.windows.size >= this.maxTracked) this.windows.clear();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window;
  }

  take(key: string, counted: { start: number; count: number } | undefined): void {
    if (counted && this.windows.get(key) === counted && counted.count > 0) counted.count -= 1;
  }

  private forgetExpired(now: number): void {
    for (const [key, window] of this.windows)
      if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}

/** An attempt counted against the limits until it proves to be a success (or fails for another reason). */
export interface AttemptReservation {
  /** Takes the attempt back: it was not a failed authentication. Idempotent. */
  release(): void;
}

export type AttemptDecision =
  | { allowed: true; reservation: AttemptReservation }
  | { allowed: false; retryAfterSeconds: number };

/**
 * Limits authentication attempts that need a secret hash, in fixed one-minute windows, by two keys:
 *
 * - the **(address, client id)** pair, `perClient` attempts: one source guessing one client's secret. A neighbour
 *   behind the same NAT presenting another client id is not affected.
 * - the **address**, `perAddress` attempts over all client ids: one source spraying ids (each costs a decoy hash).
 *
 * An attempt is counted *before* its hash, atomically (check and count in one synchronous step), so however many
 * arrive at once no more than the limit are ever hashed; a success takes its attempt back, so only failures use the
 * budget.
 */
export class FailureLimiter {
  private readonly pairs: FixedWindows;
  private readonly addresses: FixedWindows;

  constructor(
    perClient: number,
    perAddress: number,
    windowMs = 60_000,
    private readonly now: () => number = Date.now,
    maxTracked = 10_000,
  ) {
    this.pairs = new FixedWindows(perClient, windowMs, maxTracked);
    this.addresses = new FixedWindows(perAddress, windowMs, maxTracked);
  }

  /** Seconds until this address may try this client id again (0: now), without counting an attempt. */
  retryAfterSeconds(address: string, clientId: string): number {
    const now = this.now();
    return Math.max(
      this.pairs.retryAfterSeconds(`${address} ${clientId}`, now),
      this.addresses.retryAfterSeconds(address, now),
    );
  }

  /** Counts an attempt if both windows have room, in one synchronous step; refuses it otherwise. */
  reserve(address: string, clientId: string): AttemptDecision {
    const retryAfterSeconds = this.retryAfterSeconds(address, clientId);
    if (retryAfterSeconds > 0) return { allowed: false, retryAfterSeconds };
    const now = this.now();
    const pair = `${address} ${clientId}`;
    const pairWindow = this.pairs.add(pair, now);
    const addressWindow = this.addresses.add(address, now);
    let released = false;
    return {
      allowed: true,
      reservation: {
        release: () => {
          if (released) return;
          released = true;
          this.pairs.take(pair, pairWindow);
          this.addresses.take(address, addressWindow);
        },
      },
    };
  }
}
