/** Rejects a piece of work that outlives its time budget. */
export class DeadlineExceededError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * What a deadline needs of a signal that ends its work early: an `AbortSignal` has it, and so does a `Deadline`,
 * which makes no `AbortController` until something needs a real signal.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface DeadlineOptions {
  /** The budget in milliseconds. */
  ms: number;
  /** Names the work in the default error's message. */
  what: string;
  /** The error to reject with instead of a `DeadlineExceededError`. */
  error?: () => Error;
  /** Let the process exit while the timer runs (background work; never a request's own deadline). */
  unref?: boolean;
  /**
   * An outer budget (the request's own deadline) that ends this one early: rejects with its reason, and aborts the
   * work's signal too.
   */
  signal?: AbortLike;
}

/**
 * A piece of work's time budget, handed to the work as an `AbortLike`. Work that only checks `aborted` or listens
 * for the abort (most of a USSD hop) costs no `AbortController`; work that hands a real `AbortSignal` to timers or
 * queries asks for `signal`, made on first use and aborted with the deadline.
 */
export class Deadline implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  private controller: AbortController | undefined;

  private constructor() {}

  /**
   * Runs `work` against `options.ms`: when the budget is spent (or the outer `options.signal` aborts first) the
   * deadline aborts, telling its listeners, and the returned promise rejects with the same reason at once; `work`
   * itself is not cancelled, since a promise cannot be. The timer never outlives the work.
   */
  static run<T>(work: (deadline: Deadline) => Promise<T>, options: DeadlineOptions): Promise<T> {
    const { signal: outer } = options;
    if (outer?.aborted) return Promise.reject(outer.reason);
    const deadline = new Deadline();
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
      };
      const stop = (reason: unknown): void => {
        settle();
        deadline.abort(reason);
        reject(reason);
      };
      const timer = setTimeout(
        () => stop(options.error?.() ?? new DeadlineExceededError(options.what, options.ms)),
        options.ms,
      );
      if (options.unref) timer.unref();
      const onOuterAbort = outer ? (): void => stop(outer.reason) : undefined;
      if (onOuterAbort) outer?.addEventListener('abort', onOuterAbort, { once: true });
      let running: Promise<T>;
      try {
        running = work(deadline);
      } catch (error) {
        settle();
        reject(error);
        return;
      }
      running.then(
        (value) => {
          settle();
          resolve(value);
        },
        (failure: unknown) => {
          settle();
          reject(failure);
        },
      );
    });
  }

  /** A real signal for work that needs one, aborted with this deadline (at once when it has passed already). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  private abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    // Listeners are told once, as `{ once: true }` listeners of an AbortSignal are.
    if (listeners) for (const listener of listeners) listener();
  }
}

/**
 * Runs `work` against a deadline, handing it a real `AbortSignal`: when the budget is spent, the signal is aborted
 * (with the same error as its reason) so that whatever the work still does can stop writing, and the returned
 * promise rejects at once.
 */
export function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<T> {
  return Deadline.run((deadline) => work(deadline.signal), options);
}

/**
 * Waits for `work` at most `ms`, for work whose end is worth waiting for but not worth failing on (closing sockets,
 * a probe's grace): true when it settled in time, false when the budget ran out first. A rejection of `work` within
 * the budget is passed on.
 */
export async function settledWithin(work: Promise<unknown>, options: DeadlineOptions): Promise<boolean> {
  try {
    await withDeadline(() => work, options);
    return true;
  } catch (error) {
    if (error instanceof DeadlineExceededError) return false;
    throw error;
  }
}
