import type { AbortLike } from '@dmrv/deadline';

/**
 * A hop's time budget, as `withDeadline` gives one, without an `AbortController` on every hop: most hops (menus,
 * information screens) need only what the session store asks of a signal, and an `AbortController` with its
 * listener costs more than the rest of the deadline (docs/performance.md, "ussd-gateway: the hop, fourth pass").
 * Work that needs a real `AbortSignal` (account and order work, which hands it to timers and queries) takes
 * `signal`, made on first use and aborted with the deadline.
 */
export class HopDeadline implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  private controller: AbortController | undefined;

  /**
   * Runs `work` against `ms`: at the deadline the deadline aborts (with `error()` as its reason, telling its
   * listeners) and the returned promise rejects with that error at once; `work` itself is not cancelled, since a
   * promise cannot be. The timer never outlives the work.
   */
  static run<T>(ms: number, error: () => Error, work: (deadline: HopDeadline) => Promise<T>): Promise<T> {
    const deadline = new HopDeadline();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const reason = error();
        deadline.abort(reason);
        reject(reason);
      }, ms);
      work(deadline).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (failure: unknown) => {
          clearTimeout(timer);
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
