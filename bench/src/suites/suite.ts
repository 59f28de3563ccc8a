import { setTimeout as sleep } from 'node:timers/promises';
import { Janitor } from '../harness/janitor';
import { combine, LoadPlan, LoadResult, measure, preflight, problemsOf, warmUp } from '../harness/load';
import { SessionTally } from '../harness/steps';
import { cpuSecondsOf, PeakMemory, waitUntilQuiet } from '../harness/memory';
import { BenchOptions } from '../harness/options';
import { ManagedProcess } from '../harness/processes';
import {
  BatchResult,
  cpuMicrosPerRequest,
  cpuMillisPerSession,
  Measurement,
  ratio,
  WorkloadResult,
} from '../harness/report';
import { ResourceSettings } from '../harness/resources';

export interface SuiteContext {
  options: BenchOptions;
  janitor: Janitor;
  resources: ResourceSettings;
  logDir: string;
  progress(line: string): void;
  /** Every comparison made so far, kept even when a later step of its suite fails. */
  results: ComparedWorkload[];
  /** Batch jobs (bulk loads) measured against their floor. */
  batches: BatchResult[];
}

/** A process under load and where it answers. */
export interface Endpoint {
  process: ManagedProcess;
  baseUrl: string;
}

export interface Comparison {
  service: string;
  workload: string;
  dataset?: string;
  growthKey?: string;
  reference?: boolean;
  counts?: 'sessions';
  workName?: string;
  /**
   * Before each measured pass, wait until both processes are quiet: when one side queues costly work (the PIN floor's
   * hashes) a closed window leaves seconds of it behind, which would otherwise eat into the next pass of either side.
   */
  settleBetweenPasses?: boolean;
  /**
   * Run before each measured pass, after `settleBetweenPasses`: a wait for what the processes' CPU does not show (a
   * database still running the statements of the last pass).
   */
  beforeEachPass?: () => Promise<void>;
  /** Seconds each measured pass lasts at least, whatever the run's duration (see SESSION_PASS_MIN_S). */
  minimumPassS?: number;
  floor: Endpoint & { plan: LoadPlan };
  target: Endpoint & { plan: LoadPlan };
}

export interface ComparedWorkload extends WorkloadResult {
  problems: string[];
  /** What ran alongside the measured plan (its own connections, on the same process), when something did. */
  alongside?: { connections: number; floor: LoadResult; target: LoadResult };
}

/** Load run on the same process at the same time as the measured plan, measured apart (see `compare`). */
export interface Alongside {
  floor: LoadPlan;
  target: LoadPlan;
}

/** Whether a `--filter` names the workload: a part of its name, or its end when the filter ends with `$`. */
export function selected(ctx: Pick<SuiteContext, 'options'>, workload: string): boolean {
  const name = workload.toLowerCase();
  return (
    ctx.options.filters.length === 0 ||
    ctx.options.filters.some((text) =>
      text.endsWith('$') ? name.endsWith(text.slice(0, -1)) : name.includes(text),
    )
  );
}

/**
 * Whether each side is measured in two passes (floor, service, service, floor) and how long each pass lasts. A run of
 * two seconds or more is split; autocannon's shortest window is about a second, so a shorter run measures each side
 * once. A row may ask for longer passes than the run's duration gives (see SESSION_PASS_MIN_S).
 */
export function passesOf(durationS: number, minimumPassS = 0): { split: boolean; passS: number } {
  const split = durationS >= 2;
  return { split, passS: Math.max(split ? durationS / 2 : durationS, minimumPassS) };
}

/** Peak RSS of a process over several passes, and the passes' results. */
class Side {
  readonly results: LoadResult[] = [];
  peakRssBytes = 0;
  cpuSeconds: number | undefined;

  readonly alongsideResults: LoadResult[] = [];

  constructor(
    readonly endpoint: Endpoint,
    readonly plan: LoadPlan,
    readonly alongside?: LoadPlan,
  ) {}

  async pass(durationS: number): Promise<void> {
    if (this.endpoint.process.hasExited) throw new Error(this.endpoint.process.describeExit());
    const memory = new PeakMemory(this.endpoint.process.pid);
    const cpuBefore = cpuSecondsOf(this.endpoint.process.pid);
    try {
      // Two load generators at once: the measured plan's latencies are its own requests', whatever else is served.
      const [result, alongside] = await Promise.all([
        measure(this.endpoint.baseUrl, this.plan, durationS),
        this.alongside
          ? measure(this.endpoint.baseUrl, this.alongside, durationS)
          : Promise.resolve(undefined),
      ]);
      this.results.push(result);
      if (alongside) this.alongsideResults.push(alongside);
      const cpuAfter = cpuSecondsOf(this.endpoint.process.pid);
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        this.cpuSeconds = (this.cpuSeconds ?? 0) + cpuAfter - cpuBefore;
    } finally {
      this.peakRssBytes = Math.max(this.peakRssBytes, memory.stop());
    }
  }

  measurement(): Measurement {
    return {
      result: combine(this.results),
      peakRssBytes: this.peakRssBytes,
      ...(this.cpuSeconds === undefined ? {} : { cpuSeconds: this.cpuSeconds }),
    };
  }
}

/**
 * Floor and service back to back with the same plan and connection count, in the order floor, service, service,
 * floor (each pass half the duration): the machine is shared and noisy, and this order cancels a load that rises or
 * falls steadily during the comparison, which "floor then service" would charge to one side.
 */
export async function compare(
  ctx: SuiteContext,
  comparison: Comparison,
  alongside?: Alongside,
): Promise<ComparedWorkload> {
  await preflight(comparison.floor.baseUrl, comparison.floor.plan.steps);
  await preflight(comparison.target.baseUrl, comparison.target.plan.steps);
  if (alongside) {
    await preflight(comparison.floor.baseUrl, alongside.floor.steps);
    await preflight(comparison.target.baseUrl, alongside.target.steps);
  }
  const floorSide = new Side(comparison.floor, comparison.floor.plan, alongside?.floor);
  const targetSide = new Side(comparison.target, comparison.target.plan, alongside?.target);
  const settle = async (): Promise<void> => {
    if (!comparison.settleBetweenPasses) return;
    for (const endpoint of [comparison.floor, comparison.target]) {
      if (!(await waitUntilQuiet(() => cpuSecondsOf(endpoint.process.pid), sleep)))
        ctx.progress(
          `  (${endpoint.baseUrl} still busy after the wait for a quiet process; measuring anyway)`,
        );
    }
  };
  for (const [endpoint, plan, background] of [
    [comparison.floor, comparison.floor.plan, alongside?.floor],
    [comparison.target, comparison.target.plan, alongside?.target],
  ] as const) {
    await Promise.all([
      warmUp(endpoint.baseUrl, plan, ctx.options.warmupS),
      background ? warmUp(endpoint.baseUrl, background, ctx.options.warmupS) : undefined,
    ]);
  }
  const { split, passS } = passesOf(ctx.options.durationS, comparison.minimumPassS);
  const order = split ? [floorSide, targetSide, targetSide, floorSide] : [floorSide, targetSide];
  for (const side of order) {
    await settle();
    await comparison.beforeEachPass?.();
    await side.pass(passS);
  }
  const floor = floorSide.measurement();
  const target = targetSide.measurement();
  const alongsideResults = alongside
    ? {
        connections: alongside.target.connections,
        floor: combine(floorSide.alongsideResults),
        target: combine(targetSide.alongsideResults),
      }
    : undefined;
  const problems = [
    ...problemsOf(floor.result).map((problem) => `floor: ${problem}`),
    ...problemsOf(target.result).map((problem) => `service: ${problem}`),
    ...(alongsideResults
      ? [
          ...problemsOf(alongsideResults.floor).map((problem) => `floor (alongside): ${problem}`),
          ...problemsOf(alongsideResults.target).map((problem) => `service (alongside): ${problem}`),
        ]
      : []),
  ];
  const row: ComparedWorkload = {
    service: comparison.service,
    workload: comparison.workload,
    dataset: comparison.dataset,
    growthKey: comparison.growthKey,
    ...(comparison.reference ? { reference: true } : {}),
    ...(comparison.counts ? { counts: comparison.counts } : {}),
    ...(comparison.workName ? { workName: comparison.workName } : {}),
    connections: comparison.target.plan.connections,
    floor,
    target,
    problems,
    ...(alongsideResults ? { alongside: alongsideResults } : {}),
  };
  ctx.results.push(row);
  ctx.progress(
    `  ${comparison.service} ${comparison.workload}${comparison.dataset ? ` [${comparison.dataset}]` : ''}: ` +
      (row.counts === 'sessions'
        ? `completed sessions/s floor ${sessionsLine(floor, row.workName)}, service ${sessionsLine(target, row.workName)}, ` +
          `ratio ${ratio(row).toFixed(2)}; all right answers floor ${Math.round(floor.result.rps)} req/s, service ${Math.round(target.result.rps)} req/s`
        : `floor ${Math.round(floor.result.rps)} req/s, service ${Math.round(target.result.rps)} req/s, ratio ${ratio(row).toFixed(2)}`) +
      `, p50/p99 ms floor ${floor.result.p50Ms}/${floor.result.p99Ms} service ${target.result.p50Ms}/${target.result.p99Ms}` +
      // With load alongside, the process's CPU is not the measured requests' alone.
      (!alongsideResults &&
      cpuMicrosPerRequest(floor) !== undefined &&
      cpuMicrosPerRequest(target) !== undefined
        ? `, CPU per answer floor ${Math.round(cpuMicrosPerRequest(floor)!)} µs service ${Math.round(cpuMicrosPerRequest(target)!)} µs` +
          ` (floor ÷ service ${(cpuMicrosPerRequest(floor)! / cpuMicrosPerRequest(target)!).toFixed(2)})`
        : '') +
      (!alongsideResults &&
      cpuMillisPerSession(floor) !== undefined &&
      cpuMillisPerSession(target) !== undefined
        ? `, CPU per completed session floor ${cpuMillisPerSession(floor)!.toFixed(1)} ms service ${cpuMillisPerSession(target)!.toFixed(1)} ms`
        : '') +
      (alongsideResults
        ? `; alongside (${alongsideResults.connections} conns): floor ${Math.round(alongsideResults.floor.rps)} req/s ` +
          `p50/p99 ${alongsideResults.floor.p50Ms}/${alongsideResults.floor.p99Ms}${sessionsNote(alongsideResults.floor.sessions)}, ` +
          `service ${Math.round(alongsideResults.target.rps)} req/s ` +
          `p50/p99 ${alongsideResults.target.p50Ms}/${alongsideResults.target.p99Ms}${sessionsNote(alongsideResults.target.sessions)}`
        : '') +
      (problems.length > 0 ? ` — PROBLEMS: ${problems.join('; ')}` : ''),
  );
  return row;
}

function sessionsLine(side: Measurement, workName = 'work'): string {
  const tally = side.result.sessions;
  if (!tally) return 'n/a';
  return (
    `${tally.completedPerS.toFixed(1)} (${tally.workPerS.toFixed(1)} ${workName}/s, ${tally.shedPerS.toFixed(1)} shed/s, ` +
    `completed sessions' hops p50/p99 ${tally.completedHopP50Ms.toFixed(1)}/${tally.completedHopP99Ms.toFixed(1)} ms)`
  );
}

function sessionsNote(tally: SessionTally | undefined): string {
  return tally
    ? ` (${tally.completedPerS.toFixed(1)} sessions/s completed, ${tally.shedPerS.toFixed(1)} shed/s)`
    : '';
}
