import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Our families' names start with this; prom-client's process and Node.js metrics keep their standard names. */
export const METRIC_PREFIX = 'dmrv_';

/** What the pool gauges read of a `pg.Pool` (node-postgres keeps these counts itself). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /**
   * Sets the gauge's values when a scrape reads them: state that already lives elsewhere is not copied twice. A
   * promise is awaited by the scrape (a dependency asked at scrape time).
   */
  collect: (gauge: Gauge) => void | Promise<void>;
}

let processRegistry: Registry | undefined;

/**
 * prom-client's default metrics (event-loop lag, heap, GC, CPU, file descriptors) describe the process, so they are
 * collected once per process: each collection keeps an event-loop monitor and a GC observer running for good, and a
 * test process boots dozens of apps.
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The metrics of one service: a prom-client registry of its own (two apps in one process, as in the tests, never
 * share a series), the process metrics, every series labelled `service`, and factories for the service's families.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly process = processMetrics();
  private readonly pools = new Map<string, PoolCounts>();

  constructor(readonly service: string) {}

  /**
   * A prom-client counter in this service's registry; `name` must start with `dmrv_` and end with `_total`. Bind
   * the children a hot path uses once (`counter.labels('hit')`); `child.inc(0)` exports a series at 0 before its
   * first event.
   */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return new Counter({ name: this.checkedCounter(name), help, labelNames, registers: [this.registry] });
  }

  /**
   * A prom-client histogram in this service's registry, in seconds (prom-client's default buckets: 5 ms … 10 s).
   * With `counted`, its observation counts are also exported as that counter family (same labels), read from the
   * histogram when scraped: a request count that queries and alerts can name plainly, at no cost per observation.
   */
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets?: readonly number[],
    counted?: { name: string; help: string },
  ): Histogram {
    const histogram = new Histogram({
      name: this.checked(name),
      help,
      labelNames,
      ...(buckets === undefined ? {} : { buckets: [...buckets] }),
      registers: [this.registry],
    });
    if (counted !== undefined) {
      const countOf = `${name}_count`;
      new Counter({
        name: this.checkedCounter(counted.name),
        help: counted.help,
        labelNames,
        registers: [this.registry],
        async collect(this: Counter) {
          const { values } = await histogram.get();
          // Reset and refilled in one synchronous step: a scrape running beside this one reads a whole snapshot.
          this.reset();
          for (const value of values) if (value.metricName === countOf) this.inc(value.labels, value.value);
        },
      });
    }
    return histogram;
  }

  /** A gauge read at scrape time. */
  gauge(definition: GaugeDefinition): Gauge {
    const { collect } = definition;
    return new Gauge({
      name: this.checked(definition.name),
      help: definition.help,
      labelNames: [...(definition.labelNames ?? [])],
      registers: [this.registry],
      collect(this: Gauge) {
        return collect(this);
      },
    });
  }

  /**
   * One gauge per state of something that is in exactly one of them (a listener, a reflection cache): 1 for the
   * current state, 0 for the others, so a dashboard can both show it and alert on time spent away from the good one.
   */
  stateGauge(name: string, help: string, states: readonly string[], current: () => string): Gauge {
    return this.gauge({
      name,
      help,
      labelNames: ['state'],
      collect: (gauge) => {
        const now = current();
        for (const state of states) gauge.set({ state }, state === now ? 1 : 0);
      },
    });
  }

  /**
   * `dmrv_db_pool_connections{pool, state="total"|"idle"}` and `dmrv_db_pool_waiting_requests{pool}`, read from the
   * pool at scrape time. `name` tells pools apart (`primary`; a service with read replicas adds one per replica).
   */
  observePool(name: string, pool: PoolCounts): void {
    if (this.pools.size === 0) {
      this.gauge({
        name: 'dmrv_db_pool_connections',
        help: 'PostgreSQL connections the pool holds (total) and how many of them are idle',
        labelNames: ['pool', 'state'],
        collect: (gauge) => {
          for (const [poolName, counts] of this.pools) {
            gauge.set({ pool: poolName, state: 'total' }, counts.totalCount);
            gauge.set({ pool: poolName, state: 'idle' }, counts.idleCount);
          }
        },
      });
      this.gauge({
        name: 'dmrv_db_pool_waiting_requests',
        help: 'Queries waiting for a free PostgreSQL connection of the pool',
        labelNames: ['pool'],
        collect: (gauge) => {
          for (const [poolName, counts] of this.pools) gauge.set({ pool: poolName }, counts.waitingCount);
        },
      });
    }
    this.pools.set(name, pool);
  }

  /** The Prometheus text exposition of every family, the process metrics included. */
  exposition(): Promise<string> {
    const merged = Registry.merge([this.registry, this.process]);
    merged.setDefaultLabels({ service: this.service });
    return merged.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private checked(name: string): string {
    if (!name.startsWith(METRIC_PREFIX))
      throw new Error(`${name}: our metric names start with ${METRIC_PREFIX}`);
    return name;
  }

  private checkedCounter(name: string): string {
    if (!name.endsWith('_total')) throw new Error(`${name}: a counter's name ends in _total`);
    return this.checked(name);
  }
}
