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

export interface DeadlineOptions {
  /** The budget in milliseconds. */
  ms: number;
  /** Names the work in the default error's message. */
  what: string;
  /** The error to reject with instead of a `DeadlineExceededError`. */
  error?: () => Error;
  /** Let the process exit while the timer runs (background work; never a request's own deadline). */
  unref?: boolean;
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
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = options.error?.() ?? new DeadlineExceededError(options.what, options.ms);
      controller.abort(error);
      reject(error);
    }, options.ms);
    if (options.unref) timer.unref();
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
