/**
 * Counter and histogram families for the paths every request takes. prom-client's own `inc`/`observe` build a
 * label object and a hash string per call (about half a microsecond each); these find their series through one
 * Map per label, keyed by the values themselves, so an observation of a series seen before allocates nothing. The
 * registry reads them through the same `get()` prom-client's metrics answer, so they are exported like any other.
 */

/** What prom-client's registry reads from a metric when it writes the exposition. */
export interface ExportedValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

export interface ExportedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: ExportedValue[];
}

/** A label value: strings as given, numbers (HTTP status codes) written in decimal. */
export type LabelValue = string | number;

interface Node<S> {
  children: Map<LabelValue, Node<S>> | undefined;
  series: S | undefined;
}

abstract class Family<S> {
  readonly aggregator = 'sum' as const;
  private readonly root: Node<S> = { children: undefined, series: undefined };
  // The label values `find` was last asked for, and their series.
  private lastA: LabelValue | undefined;
  private lastB: LabelValue | undefined;
  private lastC: LabelValue | undefined;
  private lastD: LabelValue | undefined;
  private last: S | undefined;
  /** Every series with its label values, in the order they first appeared (the exposition order). */
  protected readonly all: Array<{ labels: Record<string, LabelValue>; series: S }> = [];

  protected constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (labelNames.length > 4) throw new Error(`${name}: at most four labels`);
  }

  /**
   * The series of these label values, made on first use. Values are positional, in `labelNames` order; keep the
   * result when the values are known in advance, so the hot path skips even the lookup.
   */
  protected find(a?: LabelValue, b?: LabelValue, c?: LabelValue, d?: LabelValue): S {
    // Under load consecutive observations often repeat the last label values (a route answering one method with one
    // status): compared as they are, without a key to build, they skip the walk down one Map per label.
    const last = this.last;
    if (last !== undefined && a === this.lastA && b === this.lastB && c === this.lastC && d === this.lastD)
      return last;
    const series = this.walk(a, b, c, d);
    this.lastA = a;
    this.lastB = b;
    this.lastC = c;
    this.lastD = d;
    this.last = series;
    return series;
  }

  private walk(a?: LabelValue, b?: LabelValue, c?: LabelValue, d?: LabelValue): S {
    let node = this.root;
    const depth = this.labelNames.length;
    for (let level = 0; level < depth; level += 1) {
      const value = (level === 0 ? a : level === 1 ? b : level === 2 ? c : d) ?? '';
      node.children ??= new Map();
      let next = node.children.get(value);
      if (next === undefined) {
        next = { children: undefined, series: undefined };
        node.children.set(value, next);
      }
      node = next;
    }
    if (node.series === undefined) {
      node.series = this.create();
      const values = [a, b, c, d];
      const labels: Record<string, LabelValue> = {};
      // An empty value is written as no label at all, which is what Prometheus makes of `label=""` anyway.
      this.labelNames.forEach((label, index) => {
        const value = values[index] ?? '';
        if (value !== '') labels[label] = value;
      });
      this.all.push({ labels, series: node.series });
    }
    return node.series;
  }

  protected abstract create(): S;

  protected abstract export(labels: Record<string, LabelValue>, series: S, into: ExportedValue[]): void;

  /** Read by prom-client's registry when it writes the exposition. */
  get(): Promise<ExportedMetric> {
    const values: ExportedValue[] = [];
    for (const { labels, series } of this.all) this.export(labels, series, values);
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  abstract get type(): 'counter' | 'histogram';

  /** Called by the registry's `resetMetrics()`. */
  reset(): void {
    this.root.children = undefined;
    this.root.series = undefined;
    this.last = undefined;
    this.all.length = 0;
  }
}

/** A counter series: `inc()` adds one. */
export interface CounterSeries {
  inc(by?: number): void;
  readonly value: number;
}

class CounterCell implements CounterSeries {
  value = 0;

  inc(by = 1): void {
    this.value += by;
  }
}

export class CounterFamily extends Family<CounterSeries> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    if (!name.endsWith('_total')) throw new Error(`${name}: a counter's name ends in _total`);
    super(name, help, labelNames);
  }

  get type(): 'counter' {
    return 'counter';
  }

  labels(a?: LabelValue, b?: LabelValue, c?: LabelValue, d?: LabelValue): CounterSeries {
    return this.find(a, b, c, d);
  }

  /** Shorthand for `labels(...).inc()`. */
  inc(a?: LabelValue, b?: LabelValue, c?: LabelValue, d?: LabelValue): void {
    this.find(a, b, c, d).inc();
  }

  protected create(): CounterSeries {
    return new CounterCell();
  }

  protected export(labels: Record<string, LabelValue>, series: CounterSeries, into: ExportedValue[]): void {
    into.push({ labels, value: series.value });
  }
}

/** A histogram series: `observe(seconds)`. */
export interface HistogramSeries {
  observe(value: number): void;
  readonly count: number;
  readonly sum: number;
}

class HistogramCell implements HistogramSeries {
  count = 0;
  sum = 0;
  /** Observations per bucket, not cumulative (the exposition adds them up); the last one is +Inf. */
  readonly counts: Float64Array;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket += 1;
    this.counts[bucket] += 1;
    this.count += 1;
    this.sum += value;
  }
}

/** prom-client's default buckets, in seconds: from 5 ms to 10 s. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class HistogramFamily extends Family<HistogramSeries> {
  private readonly bounds: readonly number[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[] = DEFAULT_BUCKETS,
  ) {
    super(name, help, labelNames);
    if (labelNames.includes('le')) throw new Error(`${name}: le is the bucket label`);
    this.bounds = [...buckets].sort((x, y) => x - y);
  }

  get type(): 'histogram' {
    return 'histogram';
  }

  labels(a?: LabelValue, b?: LabelValue, c?: LabelValue, d?: LabelValue): HistogramSeries {
    return this.find(a, b, c, d);
  }

  protected create(): HistogramSeries {
    return new HistogramCell(this.bounds);
  }

  /**
   * The observation counts of this histogram as a counter family of their own (`dmrv_http_requests_total` beside
   * `dmrv_http_request_duration_seconds`), read from the histogram when scraped: a request count that queries and
   * alerts can name plainly, at no cost per observation.
   */
  countView(name: string, help: string): CountView {
    if (!name.endsWith('_total')) throw new Error(`${name}: a counter's name ends in _total`);
    return new CountView(name, help, () =>
      this.all.map(({ labels, series }) => ({ labels, value: series.count })),
    );
  }

  protected export(labels: Record<string, LabelValue>, series: HistogramSeries, into: ExportedValue[]): void {
    const cell = series as HistogramCell;
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += cell.counts[index];
      into.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
    });
    into.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cell.count });
    into.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
    into.push({ metricName: `${this.name}_count`, labels, value: cell.count });
  }
}

/** A counter family whose values another family keeps (see `HistogramFamily.countView`). */
export class CountView {
  readonly aggregator = 'sum' as const;
  readonly type = 'counter' as const;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => ExportedValue[],
  ) {}

  get(): Promise<ExportedMetric> {
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.read(),
    });
  }

  /** The values belong to the histogram; resetting it resets them. */
  reset(): void {}
}
