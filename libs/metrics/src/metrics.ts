import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Metric } from 'prom-client';
import { CounterFamily, CountView, DEFAULT_BUCKETS, HistogramFamily } from './families';

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

  /** A counter for hot paths (see families.ts); `name` must start with `dmrv_` and end with `_total`. */
  counter(name: string, help: string, labelNames: readonly string[] = []): CounterFamily {
    return this.register(new CounterFamily(this.checked(name), help, labelNames));
  }

  /**
   * A histogram for hot paths, in seconds; default buckets 5 ms … 10 s. With `counted`, its observation counts are
   * also exported as that counter family (same labels), read from the histogram at scrape time.
   */
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets: readonly number[] = DEFAULT_BUCKETS,
    counted?: { name: string; help: string },
  ): HistogramFamily {
    const family = this.register(new HistogramFamily(this.checked(name), help, labelNames, buckets));
    if (counted) this.register(family.countView(this.checked(counted.name), counted.help));
    return family;
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

  private register<F extends CounterFamily | HistogramFamily | CountView>(family: F): F {
    // The registry only reads name, help, type and get()/reset() from a metric: ours answer those as its own do.
    this.registry.registerMetric(family as unknown as Metric);
    return family;
  }
}
