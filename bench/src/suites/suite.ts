import { Janitor } from '../harness/janitor';
import { LoadPlan, measure, preflight, problemsOf } from '../harness/load';
import { PeakMemory } from '../harness/memory';
import { BenchOptions } from '../harness/options';
import { ManagedProcess } from '../harness/processes';
import { Measurement, WorkloadResult } from '../harness/report';
import { ResourceSettings } from '../harness/resources';

export interface SuiteContext {
  options: BenchOptions;
  janitor: Janitor;
  resources: ResourceSettings;
  logDir: string;
  progress(line: string): void;
  /** Every comparison made so far, kept even when a later step of its suite fails. */
  results: ComparedWorkload[];
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
  floor: Endpoint & { plan: LoadPlan };
  target: Endpoint & { plan: LoadPlan };
}

export interface ComparedWorkload extends WorkloadResult {
  problems: string[];
}

async function measureOne(ctx: SuiteContext, endpoint: Endpoint, plan: LoadPlan): Promise<Measurement> {
  if (endpoint.process.hasExited) throw new Error(endpoint.process.describeExit());
  const memory = new PeakMemory(endpoint.process.pid);
  try {
    const result = await measure(endpoint.baseUrl, plan, { durationS: ctx.options.durationS, warmupS: ctx.options.warmupS });
    return { result, peakRssBytes: memory.stop() };
  } finally {
    memory.stop();
  }
}

/**
 * Floor first, then the service, back to back with the same plan and connection count: the machine is shared and
 * noisy, so only ratios taken side by side mean anything.
 */
export function selected(ctx: SuiteContext, workload: string): boolean {
  const name = workload.toLowerCase();
  return ctx.options.filters.length === 0 || ctx.options.filters.some((text) => name.includes(text));
}

export async function compare(ctx: SuiteContext, comparison: Comparison): Promise<ComparedWorkload> {
  await preflight(comparison.floor.baseUrl, comparison.floor.plan.steps);
  await preflight(comparison.target.baseUrl, comparison.target.plan.steps);
  const floor = await measureOne(ctx, comparison.floor, comparison.floor.plan);
  const target = await measureOne(ctx, comparison.target, comparison.target.plan);
  const problems = [
    ...problemsOf(floor.result).map((problem) => `floor: ${problem}`),
    ...problemsOf(target.result).map((problem) => `service: ${problem}`),
  ];
  const row: ComparedWorkload = {
    service: comparison.service,
    workload: comparison.workload,
    dataset: comparison.dataset,
    growthKey: comparison.growthKey,
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
