import { performance } from 'node:perf_hooks';

export interface AdmissionGateOptions {
  /** Tasks running at once (at least 1). */
  concurrency: number;
  /** Tasks admitted beyond those running (waiting for a slot, or admitted and not yet started). */
  queueLimit: number;
  /** Refuse a task whose expected wait for a slot would pass this; unbounded when absent. */
  maxWaitMs?: number;
  /** What one task is assumed to take until the gate has timed one (then a moving average of real ones). */
  initialTaskMs?: number;
  /** The error a refused task fails with. */
  refuse: () => Error;
}

/** A place in the gate taken before the task is known: `run` it, or `release` it unused. */
export interface AdmissionPass {
  run<T>(task: () => Promise<T>): Promise<T>;
  release(): void;
}

const AVERAGE_WEIGHT = 0.2;

/**
 * Runs at most `concurrency` CPU-heavy tasks (secret hashes on libuv's pool) at once and lets at most `queueLimit`
 * more wait, in arrival order; a further one, or one whose expected wait for a slot would pass `maxWaitMs`, is
 * refused at once with `refuse()`. `admit` takes the place before the task runs, so a caller can learn it would be
 * refused before it commits anything (a PIN attempt's reservation) and is never refused after.
 */
export class AdmissionGate {
  private running = 0;
  private admitted = 0;
  private readonly waiting: Array<() => void> = [];
  private averageMs: number;

  constructor(private readonly options: AdmissionGateOptions) {
    this.averageMs = options.initialTaskMs ?? 0;
  }

  /** Tasks allowed to run at once. */
  get concurrency(): number {
    return Math.max(1, this.options.concurrency);
  }

  get active(): number {
    return this.running;
  }

  /** Tasks admitted and not yet running. */
  get queued(): number {
    return this.waiting.length + this.admitted;
  }

  /** How long a task admitted now would wait for a slot, from the tasks ahead of it and the average task time. */
  get expectedWaitMs(): number {
    const concurrency = this.concurrency;
    const ahead = this.running + this.queued - concurrency + 1;
    return ahead <= 0 ? 0 : Math.ceil(ahead / concurrency) * this.averageMs;
  }

  admit(): AdmissionPass {
    const { queueLimit, maxWaitMs } = this.options;
    const full = this.running + this.queued >= this.concurrency + queueLimit;
    if (full || (maxWaitMs !== undefined && this.expectedWaitMs > maxWaitMs)) throw this.options.refuse();
    this.admitted += 1;
    let used = false;
    const use = (): void => {
      if (used) throw new Error('an admission pass is used once');
      used = true;
      this.admitted -= 1;
    };
    return {
      run: (task) => {
        use();
        return this.start(task);
      },
      release: () => {
        if (!used) use();
      },
    };
  }

  /** Admits and runs `task`; a refusal is a rejection, like the task's own failures. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    return this.admit().run(task);
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency || this.waiting.length > 0) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    const started = performance.now();
    try {
      return await task();
    } finally {
      const tookMs = performance.now() - started;
      this.averageMs =
        this.averageMs === 0 ? tookMs : this.averageMs + AVERAGE_WEIGHT * (tookMs - this.averageMs);
      this.running -= 1;
      // Synchronously, so a new arrival can never overtake the queue for the freed slot.
      this.startWaiting();
    }
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.running < this.concurrency) {
      this.running += 1;
      this.waiting.shift()!();
    }
  }
}
