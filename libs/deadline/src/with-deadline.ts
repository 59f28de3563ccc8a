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
 * What a deadline needs of a signal that ends its work early: an `AbortSignal` has it, and so does a hop's own
 * deadline, which makes no `AbortController` until something needs a real signal (the USSD gateway's hop).
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
 * Runs `work` against a deadline. When the budget is spent, the signal handed to `work` is aborted (with the same
 * error as its reason) so that whatever it still does can stop writing, and the returned promise rejects at once;
 * `work` itself is not cancelled, since a promise cannot be. The timer never outlives the work.
 */
export async function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<T> {
  const { signal: outer } = options;
  outer?.throwIfAborted();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    const stop = (error: unknown): void => {
      controller.abort(error);
      reject(error);
    };
    timer = setTimeout(
      () => stop(options.error?.() ?? new DeadlineExceededError(options.what, options.ms)),
      options.ms,
    );
    if (options.unref) timer.unref();
    onOuterAbort = () => stop(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
  }
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
