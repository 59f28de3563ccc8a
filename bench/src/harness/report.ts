import { LoadResult } from './load';
import { SessionTally } from './steps';
import { SESSION_PASS_MIN_S } from './options';

export interface Measurement {
  result: LoadResult;
  /** Peak resident set size of the measured process during this workload, in bytes. */
  peakRssBytes: number;
  /** CPU seconds the measured process used during the measured passes (Linux), whatever else was served. */
  cpuSeconds?: number;
}

/** CPU time per completed session, in milliseconds; undefined without a CPU reading or a completed session. */
export function cpuMillisPerSession(measurement: Measurement): number | undefined {
  const { cpuSeconds, result } = measurement;
  const completed = result.sessions?.completed ?? 0;
  return cpuSeconds === undefined || completed === 0 ? undefined : (cpuSeconds * 1e3) / completed;
}

/** CPU time per answered request, in microseconds; undefined without a CPU reading or an answer. */
export function cpuMicrosPerRequest(measurement: Measurement): number | undefined {
  const { cpuSeconds, result } = measurement;
  return cpuSeconds === undefined || result.ok === 0 ? undefined : (cpuSeconds * 1e6) / result.ok;
}

export interface WorkloadResult {
  service: string;
  workload: string;
  /** Size of the data behind the answers, when there is any (e.g. "100,000 households"). */
  dataset?: string;
  /** Groups the same workload at two data sizes (registry aggregates). */
  growthKey?: string;
  /** Not one of our services but the framework they share: a bound for the others, never flagged. */
  reference?: boolean;
  connections: number;
  /**
   * What the row's req/s, Ratio and p50/p99 count: right answers (absent), or completed sessions and their hops
   * (`sessions`: a side that sheds work would otherwise look faster than one that does it).
   */
  counts?: 'sessions';
  /** The costly work the sessions' hops do, as the sessions table names it (e.g. "scrypt hashes"). */
  workName?: string;
  floor: Measurement;
  target: Measurement;
}

/** One side of a batch job (a bulk load): wall time of its process, start to exit, and the rows it stored. */
export interface BatchSide {
  seconds: number;
  rows: number;
}

/** A batch job against its floor, each run once (a bulk load is long enough to measure in one pass). */
export interface BatchResult {
  service: string;
  workload: string;
  dataset: string;
  floor: BatchSide;
  target: BatchSide;
  problems: string[];
}

export function batchRatio(batch: BatchResult): number {
  return batch.target.seconds > 0 ? batch.floor.seconds / batch.target.seconds : 0;
}

export interface RunInfo {
  startedAt: string;
  mode: string;
  durationS: number;
  warmupS: number;
  node: string;
  cpus: string;
  loadAverage: string;
  /** Environment added to the services for this run (what-if runs), if any. */
  serviceEnv?: Record<string, string>;
}

/** Thresholds from the issue: below them we owe a profile and a fix. */
export const FLOOR_RATIO_THRESHOLD = 0.7;
export const GROWTH_SLOWDOWN_THRESHOLD = 1.5;

/** What the row's req/s column shows for one side: right answers per second, or completed sessions per second. */
export function rowRate(row: Pick<WorkloadResult, 'counts'>, side: Measurement): number {
  return row.counts === 'sessions' ? (side.result.sessions?.completedPerS ?? 0) : side.result.rps;
}

/** The row's p50 and p99: of every right answer, or of the completed sessions' hops. */
export function rowLatency(
  row: Pick<WorkloadResult, 'counts'>,
  side: Measurement,
): { p50Ms: number; p99Ms: number } {
  if (row.counts !== 'sessions') return { p50Ms: side.result.p50Ms, p99Ms: side.result.p99Ms };
  return {
    p50Ms: side.result.sessions?.completedHopP50Ms ?? 0,
    p99Ms: side.result.sessions?.completedHopP99Ms ?? 0,
  };
}

export function ratio(row: WorkloadResult): number {
  const floor = rowRate(row, row.floor);
  return floor > 0 ? rowRate(row, row.target) / floor : 0;
}

export interface GrowthRow {
  key: string;
  base: WorkloadResult;
  scaled: WorkloadResult;
  /** How many times slower (in throughput) the service got at the larger size. */
  slowdown: number;
  floorSlowdown: number;
}

export function growthRows(rows: WorkloadResult[]): GrowthRow[] {
  const byKey = new Map<string, WorkloadResult[]>();
  for (const row of rows) {
    if (!row.growthKey) continue;
    byKey.set(row.growthKey, [...(byKey.get(row.growthKey) ?? []), row]);
  }
  const result: GrowthRow[] = [];
  for (const [key, [base, scaled]] of byKey) {
    if (!base || !scaled) continue;
    const slow = (a: number, b: number): number => (b > 0 ? a / b : Number.POSITIVE_INFINITY);
    result.push({
      key,
      base,
      scaled,
      slowdown: slow(base.target.result.rps, scaled.target.result.rps),
      floorSlowdown: slow(base.floor.result.rps, scaled.floor.result.rps),
    });
  }
  return result;
}

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
// autocannon's latencies are whole milliseconds: a 0 is "under a millisecond".
const ms = (value: number): string => (value === 0 ? '<1' : value < 10 ? value.toFixed(1) : integer(value));
const mb = (bytes: number): string => (bytes > 0 ? `${Math.round(bytes / 1024 / 1024)} MB` : 'n/a');
// Session rates are tens per second: a decimal keeps two of them apart.
const rate = (value: number): string => (value < 100 ? value.toFixed(1) : integer(value));
const times = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '∞');

export function renderMarkdown(info: RunInfo, rows: WorkloadResult[], batches: BatchResult[] = []): string {
  const lines: string[] = [
    `Run ${info.startedAt} · mode ${info.mode} · ${info.durationS} s per measurement after ${info.warmupS} s warm-up · ` +
      `Node ${info.node} · ${info.cpus} · load average at start ${info.loadAverage}` +
      (info.serviceEnv && Object.keys(info.serviceEnv).length > 0
        ? ` · services run with ${Object.entries(info.serviceEnv)
            .map(([key, value]) => `${key}=${value}`)
            .join(' ')}`
        : ''),
    '',
    '| Service | Workload | Data | Conns | Floor req/s | Service req/s | Ratio | Floor p50 / p99 ms | Service p50 / p99 ms | Service peak RSS | Floor peak RSS |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of rows) {
    const value = ratio(row);
    const flag = value < FLOOR_RATIO_THRESHOLD && !row.reference ? ' ⚠' : '';
    const shown = row.counts === 'sessions' ? rate : integer;
    const [floor, target] = [rowLatency(row, row.floor), rowLatency(row, row.target)];
    lines.push(
      `| ${row.service} | ${row.workload} | ${row.dataset ?? '–'} | ${row.connections} | ${shown(rowRate(row, row.floor))} | ` +
        `${shown(rowRate(row, row.target))} | ${value.toFixed(2)}${flag} | ` +
        `${ms(floor.p50Ms)} / ${ms(floor.p99Ms)} | ${ms(target.p50Ms)} / ${ms(target.p99Ms)} | ` +
        `${mb(row.target.peakRssBytes)} | ${mb(row.floor.peakRssBytes)} |`,
    );
  }
  const sessionRows = rows.filter((row) => row.counts === 'sessions');
  if (sessionRows.length > 0) {
    lines.push(
      '',
      "| Sessions | Completed/s floor / service | Ratio | Work done/s floor / service | Shed/s floor / service | Completed sessions' hops p99 ms floor / service | All right answers/s floor / service | CPU ms per completed session floor / service |",
      '|---|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const row of sessionRows) {
      const [floor, target] = [row.floor, row.target];
      const tally = (side: Measurement): SessionTally | undefined => side.result.sessions;
      const cpu = (side: Measurement): string => {
        const value = cpuMillisPerSession(side);
        return value === undefined ? 'n/a' : value.toFixed(1);
      };
      lines.push(
        `| ${row.workload} | ${rate(rowRate(row, floor))} / ${rate(rowRate(row, target))} | ${ratio(row).toFixed(2)} | ` +
          `${rate(tally(floor)?.workPerS ?? 0)} / ${rate(tally(target)?.workPerS ?? 0)}${row.workName ? ` ${row.workName}` : ''} | ` +
          `${rate(tally(floor)?.shedPerS ?? 0)} / ${rate(tally(target)?.shedPerS ?? 0)} | ` +
          `${ms(tally(floor)?.completedHopP99Ms ?? 0)} / ${ms(tally(target)?.completedHopP99Ms ?? 0)} | ` +
          `${integer(floor.result.rps)} / ${integer(target.result.rps)} | ${cpu(floor)} / ${cpu(target)} |`,
      );
    }
  }
  const growth = growthRows(rows);
  if (growth.length > 0) {
    lines.push(
      '',
      '| Aggregate | Service req/s (small → 10×) | Service p50 ms (small → 10×) | Service slowdown | Floor slowdown (same SQL) |',
      '|---|--:|--:|--:|--:|',
    );
    for (const row of growth) {
      const flag = row.slowdown > GROWTH_SLOWDOWN_THRESHOLD ? ' ⚠' : '';
      lines.push(
        `| ${row.key} | ${integer(row.base.target.result.rps)} → ${integer(row.scaled.target.result.rps)} | ` +
          `${ms(row.base.target.result.p50Ms)} → ${ms(row.scaled.target.result.p50Ms)} | ${times(row.slowdown)}${flag} | ${times(row.floorSlowdown)} |`,
      );
    }
  }
  if (batches.length > 0) {
    lines.push(
      '',
      '| Service | Batch job | Data | Floor s | Service s | Floor rows/s | Service rows/s | Ratio |',
      '|---|---|---|--:|--:|--:|--:|--:|',
    );
    for (const batch of batches) {
      const value = batchRatio(batch);
      const rate = (side: BatchSide): string => integer(side.seconds > 0 ? side.rows / side.seconds : 0);
      lines.push(
        `| ${batch.service} | ${batch.workload} | ${batch.dataset} | ${batch.floor.seconds.toFixed(1)} | ${batch.target.seconds.toFixed(1)} | ` +
          `${rate(batch.floor)} | ${rate(batch.target)} | ${value.toFixed(2)}${value < FLOOR_RATIO_THRESHOLD ? ' ⚠' : ''} |`,
      );
    }
    lines.push(
      '',
      'Batch ratio = floor seconds ÷ service seconds, each the wall time of its own process, run once (1.00 = as fast as a bare `COPY` of the same file).',
    );
  }
  lines.push(
    '',
    `Ratio = service req/s ÷ floor req/s in the same run (1.00 = as fast as the least work that answers the request); ` +
      `on a row that counts sessions, completed sessions/s ÷ the floor's (shed sessions count for neither side), ` +
      `measured, like the session mix, over passes of at least ${SESSION_PASS_MIN_S} s outside smoke mode (a PIN session lasts seconds at saturation). ` +
      `⚠ marks a ratio below ${FLOOR_RATIO_THRESHOLD} or an aggregate more than ${GROWTH_SLOWDOWN_THRESHOLD}× slower at ten times the data.`,
  );
  if (rows.some((row) => row.reference)) {
    lines.push(
      '',
      'The `reference` rows are not services: the first is the shared framework answering a constant, the most any ' +
        'service can reach against a floor that does no more I/O than the answer needs; bare Nest and bare Fastify, ' +
        'when measured, are the same route without our request id, access line and metrics, then without Nest.',
    );
  }
  return lines.join('\n');
}
