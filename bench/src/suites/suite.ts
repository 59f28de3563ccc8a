import { Janitor } from '../harness/janitor';
import { combine, LoadPlan, LoadResult, measure, preflight, problemsOf, warmUp } from '../harness/load';
import { PeakMemory } from '../harness/memory';
import { BenchOptions } from '../harness/options';
import { ManagedProcess } from '../harness/processes';
import { BatchResult, Measurement, WorkloadResult } from '../harness/report';
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
  floor: Endpoint & { plan: LoadPlan };
  target: Endpoint & { plan: LoadPlan };
}

export interface ComparedWorkload extends WorkloadResult {
  problems: string[];
}

/** Whether a `--filter` names the workload: a part of its name, or its end when the filter ends with `$`. */
export function selected(ctx: Pick<SuiteContext, 'options'>, workload: string): boolean {
  const name = workload.toLowerCase();
  return (
    ctx.options.filters.length === 0 ||
    ctx.options.filters.some((text) => (text.endsWith('$') ? name.endsWith(text.slice(0, -1)) : name.includes(text)))
  );
}

/** Peak RSS of a process over several passes, and the passes' results. */
class Side {
  readonly results: LoadResult[] = [];
  peakRssBytes = 0;

  constructor(
    readonly endpoint: Endpoint,
    readonly plan: LoadPlan,
  ) {}

  async pass(durationS: number): Promise<void> {
    if (this.endpoint.process.hasExited) throw new Error(this.endpoint.process.describeExit());
    const memory = new PeakMemory(this.endpoint.process.pid);
    try {
      this.results.push(await measure(this.endpoint.baseUrl, this.plan, durationS));
    } finally {
      this.peakRssBytes = Math.max(this.peakRssBytes, memory.stop());
    }
  }

  measurement(): Measurement {
    return { result: combine(this.results), peakRssBytes: this.peakRssBytes };
  }
}

/**
 * Floor and service back to back with the same plan and connection count, in the order floor, service, service,
 * floor (each pass half the duration): the machine is shared and noisy, and this order cancels a load that rises or
 * falls steadily during the comparison, which "floor then service" would charge to one side.
 */
export async function compare(ctx: SuiteContext, comparison: Comparison): Promise<ComparedWorkload> {
  await preflight(comparison.floor.baseUrl, comparison.floor.plan.steps);
  await preflight(comparison.target.baseUrl, comparison.target.plan.steps);
  const floorSide = new Side(comparison.floor, comparison.floor.plan);
  const targetSide = new Side(comparison.target, comparison.target.plan);
  await warmUp(comparison.floor.baseUrl, comparison.floor.plan, ctx.options.warmupS);
  await warmUp(comparison.target.baseUrl, comparison.target.plan, ctx.options.warmupS);
  // autocannon's shortest window is about a second, so a run shorter than two seconds measures each side once.
  const split = ctx.options.durationS >= 2;
  const order = split ? [floorSide, targetSide, targetSide, floorSide] : [floorSide, targetSide];
  for (const side of order) await side.pass(split ? ctx.options.durationS / 2 : ctx.options.durationS);
  const floor = floorSide.measurement();
  const target = targetSide.measurement();
  const problems = [
    ...problemsOf(floor.result).map((problem) => `floor: ${problem}`),
    ...problemsOf(target.result).map((problem) => `service: ${problem}`),
  ];
  const row: ComparedWorkload = {
    service: comparison.service,
    workload: comparison.workload,
    dataset: comparison.dataset,
    growthKey: comparison.growthKey,
    ...(comparison.reference ? { reference: true } : {}),
    connections: comparison.target.plan.connections,
    floor,
    target,
    problems,
  };
  ctx.results.push(row);
  const ratio = floor.result.rps > 0 ? target.result.rps / floor.result.rps : 0;
  ctx.progress(
    `  ${comparison.service} ${comparison.workload}${comparison.dataset ? ` [${comparison.dataset}]` : ''}: ` +
      `floor ${Math.round(floor.result.rps)} req/s, service ${Math.round(target.result.rps)} req/s, ratio ${ratio.toFixed(2)}` +
      (problems.length > 0 ? ` — PROBLEMS: ${problems.join('; ')}` : ''),
  );
  return row;
}
