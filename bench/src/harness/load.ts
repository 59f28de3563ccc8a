import autocannon from 'autocannon';
import { HopAnswer, SessionCounter } from './session-counter';
import { SessionTally, Step, StepContext } from './steps';

export interface LoadPlan {
  /** Every connection sends these in order and starts over: one pass is one unit of work (e.g. a whole session). */
  steps: Step[];
  connections: number;
}

export interface LoadResult {
  /** Requests answered (any status). */
  requests: number;
  /** Requests answered 2xx whose body passed the step's check. */
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx answers whose body failed the step's check. */
  unexpected: number;
  /** Answers the service shed (Step.shed): neither successful nor a problem. */
  shed: number;
  /** First failing body or status, to say what went wrong. */
  firstProblem?: string;
  statusCodes: Record<string, number>;
  durationS: number;
  /** Successful requests per second over the measured window. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Only for plans whose steps complete or shed passes. */
  sessions?: SessionTally;
}

interface RawResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** What the bench itself saw of the answers (the body checks, shed answers, completed passes). */
export interface AnswerChecks {
  unexpected: number;
  shed?: number;
  firstProblem?: string;
  sessions?: SessionTally;
}

/** Pure: turns autocannon's numbers and our body checks into one result. */
export function summarise(raw: RawResult, checks: AnswerChecks): LoadResult {
  const { unexpected, firstProblem, sessions } = checks;
  const shed = checks.shed ?? 0;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(raw.statusCodeStats ?? {}))
    statusCodes[code] = Number(count);
  const ok = Math.max(0, raw.requests.total - raw.non2xx - unexpected - shed);
  const durationS = raw.duration > 0 ? raw.duration : 1;
  return {
    requests: raw.requests.total,
    ok,
    non2xx: raw.non2xx,
    errors: raw.errors,
    timeouts: raw.timeouts,
    unexpected,
    shed,
    firstProblem,
    statusCodes,
    durationS,
    rps: ok / durationS,
    p50Ms: raw.latency.p50,
    p99Ms: raw.latency.p99,
    ...(sessions ? { sessions } : {}),
  };
}

export function problemsOf(result: LoadResult): string[] {
  const problems: string[] = [];
  if (result.ok === 0) problems.push('no successful request');
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)})`);
  if (result.errors > 0) problems.push(`${result.errors} connection errors (${result.timeouts} time-outs)`);
  if (result.unexpected > 0) problems.push(`${result.unexpected} unexpected bodies`);
  if (problems.length > 0 && result.firstProblem) problems.push(`first: ${result.firstProblem}`);
  return problems;
}

async function fire(
  baseUrl: string,
  plan: LoadPlan,
  durationS: number,
  timeoutS: number,
): Promise<LoadResult> {
  let unexpected = 0;
  let shed = 0;
  let firstProblem: string | undefined;
  const note = (problem: string): void => {
    firstProblem ??= problem.slice(0, 300);
  };
  const countsSessions = plan.steps.some((step) => step.completes || step.shed);
  const sessions = new SessionCounter();
  // A pass is autocannon's context object: a fresh one each time a connection starts the steps over.
  const shedPasses = new WeakSet<object>();
  // autocannon calls a request's onResponse and then, synchronously, emits the response's latency.
  let answered: { pass: object; step: Step; answer: HopAnswer } | undefined;
  const requests: autocannon.Request[] = plan.steps.map((step, index) => {
    const dynamic = step.body !== undefined || step.prepare !== undefined || countsSessions;
    const request: autocannon.Request = { method: step.method, path: step.path };
    if (step.headers) request.headers = step.headers;
    // autocannon tests for the key, not the value: a static step must not carry `setupRequest` at all.
    if (dynamic) {
      request.setupRequest = (built: autocannon.Request, context: object) => {
        // No request: autocannon starts the steps over with a fresh context (the subscriber dials again).
        if (shedPasses.has(context)) return undefined as unknown as autocannon.Request;
        const ctx = context as StepContext;
        step.prepare?.(ctx);
        return step.body ? { ...built, body: step.body(ctx) } : built;
      };
    }
    return {
      ...request,
      onResponse: (status: number, body: string, context: object) => {
        let answer: HopAnswer = 'right';
        if (status < 200 || status >= 300) {
          answer = 'wrong';
          note(`step ${index + 1} ${step.method} ${step.path}: HTTP ${status} ${body}`);
        } else if (step.shed?.(body)) {
          answer = 'shed';
          shed += 1;
          shedPasses.add(context);
        } else {
          const wrong = step.expect?.(body);
          if (wrong !== undefined) {
            answer = 'wrong';
            unexpected += 1;
            note(`step ${index + 1} ${step.method} ${step.path}: ${wrong}`);
          }
        }
        if (countsSessions) answered = { pass: context, step, answer };
      },
    };
  });
  const raw = await new Promise<RawResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: plan.connections,
        pipelining: 1,
        duration: durationS,
        timeout: timeoutS,
        requests,
      },
      (error: unknown, result: autocannon.Result) =>
        error
          ? reject(error instanceof Error ? error : new Error(String(error)))
          : resolve(result as unknown as RawResult),
    );
    if (countsSessions) {
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        if (answered) sessions.record(answered.pass, answered.step, answered.answer, responseTime);
        answered = undefined;
      });
    }
  });
  return summarise(raw, {
    unexpected,
    shed,
    firstProblem,
    ...(countsSessions ? { sessions: sessions.tally(raw.duration > 0 ? raw.duration : 1) } : {}),
  });
}

/** A pass whose numbers are discarded: JIT, pools and caches warm up before anything is measured. */
export async function warmUp(baseUrl: string, plan: LoadPlan, warmupS: number, timeoutS = 10): Promise<void> {
  if (warmupS > 0) await fire(baseUrl, plan, warmupS, timeoutS);
}

/** One measured pass. */
export function measure(
  baseUrl: string,
  plan: LoadPlan,
  durationS: number,
  timeoutS = 10,
): Promise<LoadResult> {
  return fire(baseUrl, plan, durationS, timeoutS);
}

/**
 * Several measured passes of one target as one result: counts add up, the rate is over the summed windows, p50 and
 * p99 are the request-weighted means of the passes' percentiles (autocannon gives percentiles, not histograms); the
 * completed sessions' hop percentiles are weighted by those hops alike.
 */
export function combine(results: LoadResult[]): LoadResult {
  if (results.length === 1) return results[0]!;
  const sum = (pick: (result: LoadResult) => number): number =>
    results.reduce((total, result) => total + pick(result), 0);
  const requests = sum((result) => result.requests);
  const weighted = (pick: (result: LoadResult) => number): number =>
    requests > 0 ? sum((result) => pick(result) * result.requests) / requests : 0;
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const ok = sum((result) => result.ok);
  const durationS = sum((result) => result.durationS);
  const sessions = combineSessions(results, durationS);
  return {
    requests,
    ok,
    non2xx: sum((result) => result.non2xx),
    errors: sum((result) => result.errors),
    timeouts: sum((result) => result.timeouts),
    unexpected: sum((result) => result.unexpected),
    shed: sum((result) => result.shed),
    firstProblem: results.find((result) => result.firstProblem)?.firstProblem,
    statusCodes,
    durationS,
    rps: durationS > 0 ? ok / durationS : 0,
    p50Ms: weighted((result) => result.p50Ms),
    p99Ms: weighted((result) => result.p99Ms),
    ...(sessions ? { sessions } : {}),
  };
}

function combineSessions(results: LoadResult[], durationS: number): SessionTally | undefined {
  const tallies = results.flatMap((result) => (result.sessions ? [result.sessions] : []));
  if (tallies.length === 0) return undefined;
  const sum = (pick: (tally: SessionTally) => number): number =>
    tallies.reduce((total, tally) => total + pick(tally), 0);
  const completedHops = sum((tally) => tally.completedHops);
  const weighted = (pick: (tally: SessionTally) => number): number =>
    completedHops > 0 ? sum((tally) => pick(tally) * tally.completedHops) / completedHops : 0;
  const perS = (count: number): number => (durationS > 0 ? count / durationS : 0);
  const completed = sum((tally) => tally.completed);
  const shed = sum((tally) => tally.shed);
  const work = sum((tally) => tally.work);
  return {
    completed,
    shed,
    work,
    completedPerS: perS(completed),
    shedPerS: perS(shed),
    workPerS: perS(work),
    completedHops,
    completedHopP50Ms: weighted((tally) => tally.completedHopP50Ms),
    completedHopP99Ms: weighted((tally) => tally.completedHopP99Ms),
  };
}

/**
 * One pass of the plan's steps with plain fetch before any load: a wrong route, a missing seed or a changed menu
 * fails here with the body in the message, instead of as thousands of anonymous non-2xx.
 */
export async function preflight(baseUrl: string, steps: Step[]): Promise<void> {
  const context: StepContext = {};
  for (const [index, step] of steps.entries()) {
    step.prepare?.(context);
    const body = step.body?.(context);
    const where = `${baseUrl} step ${index + 1} ${step.method} ${step.path}${body ? ` ${body}` : ''}`;
    let response: Response;
    try {
      response = await fetch(new URL(step.path, baseUrl), {
        method: step.method,
        headers: step.headers,
        body,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      throw new Error(`${where}: ${(error as Error).message}${cause ? ` (${cause.message})` : ''}`);
    }
    const text = await response.text();
    if (response.status < 200 || response.status >= 300)
      throw new Error(`${where}: HTTP ${response.status} ${text.slice(0, 300)}`);
    const wrong = step.expect?.(text);
    if (wrong !== undefined) throw new Error(`${where}: ${wrong}`);
  }
}
