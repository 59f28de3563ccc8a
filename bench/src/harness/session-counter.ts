import type { SessionTally, Step } from './steps';

/** How a hop was answered: right (2xx, the expected body), wrong (anything else), or shed by the service. */
export type HopAnswer = 'right' | 'wrong' | 'shed';

/** Nearest-rank percentile of ascending `sorted`; 0 when empty. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/**
 * Counts what passes of a plan got done, hop by hop as they are answered. A pass is any object standing for one
 * run of the plan's steps on one connection (autocannon gives each a fresh context object). A pass completes when
 * its completing step is answered right with every hop before it right; a wrong answer spoils the pass; a shed
 * answer ends it (the connection starts the next one).
 */
export class SessionCounter {
  private readonly hopsOfPass = new WeakMap<object, number[]>();
  private readonly spoiled = new WeakSet<object>();
  private readonly completedHopMs: number[] = [];
  private completed = 0;
  private shed = 0;
  private work = 0;

  record(
    pass: object,
    step: Pick<Step, 'completes' | 'doesWork'>,
    answer: HopAnswer,
    latencyMs: number,
  ): void {
    if (answer === 'shed') {
      this.shed += 1;
      this.hopsOfPass.delete(pass);
      return;
    }
    if (answer === 'wrong') {
      this.spoiled.add(pass);
      this.hopsOfPass.delete(pass);
      return;
    }
    if (step.doesWork) this.work += 1;
    if (this.spoiled.has(pass)) return;
    const hops = this.hopsOfPass.get(pass) ?? [];
    hops.push(latencyMs);
    if (!step.completes) {
      this.hopsOfPass.set(pass, hops);
      return;
    }
    // A plan may hold two sessions in a row (the mixed workload's creation then log-in): the next starts afresh.
    this.completed += 1;
    this.completedHopMs.push(...hops);
    this.hopsOfPass.delete(pass);
  }

  tally(durationS: number): SessionTally {
    const sorted = [...this.completedHopMs].sort((a, b) => a - b);
    const perS = (count: number): number => (durationS > 0 ? count / durationS : 0);
    return {
      completed: this.completed,
      shed: this.shed,
      work: this.work,
      completedPerS: perS(this.completed),
      shedPerS: perS(this.shed),
      workPerS: perS(this.work),
      completedHops: sorted.length,
      completedHopP50Ms: percentile(sorted, 0.5),
      completedHopP99Ms: percentile(sorted, 0.99),
    };
  }
}
