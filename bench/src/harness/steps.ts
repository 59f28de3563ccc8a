/** What a connection carries from one step of its sequence to the next (a USSD session's id, say). */
export type StepContext = Record<string, string | number>;

export interface Step {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Built per request, so steps can carry per-session values such as a fresh session id. */
  body?: (context: StepContext) => string;
  /** Runs before the body is built; lets the first step of a sequence start a new session. */
  prepare?: (context: StepContext) => void;
  /** Checks a 2xx answer's body; returns why it is wrong, or undefined. */
  expect?: (body: string) => string | undefined;
  /**
   * The service turned the work down (a "busy" answer): not checked, not counted as an answer nor as an error, and
   * the pass ends there — the connection starts the next pass, as a subscriber told "busy" dials again.
   */
  shed?: (body: string) => boolean;
  /** A right answer here completes the pass's purpose (an account created, a log-in): counted as a completed session. */
  completes?: boolean;
  /** A right answer here means the service did the costly work the workload is about once (a PIN hash). */
  doesWork?: boolean;
}

/**
 * Passes of a plan whose steps say when a pass is complete or shed (see Step): what both sides actually got done,
 * which hop counts alone cannot show when one side sheds work and the other queues it.
 */
export interface SessionTally {
  /** Passes whose completing step was answered right. */
  completed: number;
  /** Answers the service shed (each ends its pass). */
  shed: number;
  /** Right answers to steps that do the costly work. */
  work: number;
  completedPerS: number;
  shedPerS: number;
  workPerS: number;
  /** Hops of the completed passes, up to and including the completing one. */
  completedHops: number;
  /** Latency percentiles of those hops. */
  completedHopP50Ms: number;
  completedHopP99Ms: number;
}
