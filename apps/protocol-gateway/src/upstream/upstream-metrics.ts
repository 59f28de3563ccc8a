import { status } from '@grpc/grpc-js';
import type { Counter, Histogram, Metrics } from '@dmrv/metrics';
import type { SpanTracer } from '@dmrv/tracing';
import type { ReflectionState } from './reflection-monitor';
import type { UpstreamObserver } from './upstream-client';

const REFLECTION_STATES: ReadonlyArray<ReflectionState['kind']> = ['known', 'unsupported', 'unknown'];

/** Upstream latencies in seconds: a node on the same network answers in milliseconds; the deadline caps the rest. */
const UPSTREAM_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** What the metrics read from a node at scrape time. */
export interface NodeView {
  readonly address: string;
  /** 1 when the node answered the last call made to it, 0 when it did not; undefined before the first call. */
  readonly answered: 0 | 1 | undefined;
  /** The highest block height the node reported (`x-cosmos-block-height`); undefined before it reported one. */
  readonly latestHeight: number | undefined;
}

/**
 * The protocol gateway's upstream families, each labelled `upstream` with a node's address (one series per node of
 * GRPC_UPSTREAM):
 * - `dmrv_protocol_upstream_call_duration_seconds{upstream, grpc_service, method, code}`: every call, by gRPC service,
 *   method and final status (`OK`, `NOT_FOUND`, `UNAVAILABLE`, …), and the same counts as
 *   `dmrv_protocol_upstream_calls_total{upstream, grpc_service, method, code}`;
 * - `dmrv_protocol_upstream_up{upstream}`: 1 when the node answered the last call made to it, 0 when it was
 *   unreachable or silent until the deadline (health checks and readiness probes keep this fresh without traffic);
 * - `dmrv_protocol_upstream_block_height{upstream}`: the latest block height the node reported;
 * - `dmrv_protocol_upstream_failovers_total{upstream}`: requests that left this node for another one;
 * - `dmrv_protocol_upstream_hedges_total{upstream}`: requests also sent to another node while this one was silent;
 * - `dmrv_protocol_upstream_channel_replacements_total{upstream}`: connections given up as dead;
 * - `dmrv_protocol_reflection_state{upstream, state}` and `dmrv_protocol_reflection_services{upstream}`: what
 *   reflection last learnt (services listed, node without reflection, or not known yet).
 */
export class UpstreamMetrics {
  private readonly calls: Histogram;
  private readonly replacements: Counter;
  private readonly failovers: Counter;
  private readonly hedges: Counter;
  private readonly nodes: NodeView[] = [];
  private readonly names = new Map<string, [service: string, method: string]>();

  constructor(
    private readonly metrics: Metrics,
    private readonly tracer: SpanTracer | undefined,
  ) {
    this.calls = metrics.histogram(
      'dmrv_protocol_upstream_call_duration_seconds',
      'gRPC calls to the chain node, by service, method and status, and how long they took',
      ['upstream', 'grpc_service', 'method', 'code'],
      UPSTREAM_BUCKETS,
      {
        name: 'dmrv_protocol_upstream_calls_total',
        help: 'gRPC calls to the chain node, by service, method and status',
      },
    );
    this.replacements = metrics.counter(
      'dmrv_protocol_upstream_channel_replacements_total',
      'Connections to the chain node replaced because a call met its deadline with nothing received on them',
      ['upstream'],
    );
    this.failovers = metrics.counter(
      'dmrv_protocol_upstream_failovers_total',
      'Requests that left this chain node for another one (node down, or without the requested height)',
      ['upstream'],
    );
    this.hedges = metrics.counter(
      'dmrv_protocol_upstream_hedges_total',
      'Requests also sent to another chain node because this one had not answered within UPSTREAM_HEDGE_MS',
      ['upstream'],
    );
    metrics.gauge({
      name: 'dmrv_protocol_upstream_up',
      help: 'Whether the chain node answered the last call made to it (1) or not (0)',
      labelNames: ['upstream'],
      collect: (gauge) => {
        for (const node of this.nodes)
          if (node.answered !== undefined) gauge.set({ upstream: node.address }, node.answered);
      },
    });
    metrics.gauge({
      name: 'dmrv_protocol_upstream_block_height',
      help: 'The latest block height the chain node reported (x-cosmos-block-height)',
      labelNames: ['upstream'],
      collect: (gauge) => {
        for (const node of this.nodes)
          if (node.latestHeight !== undefined) gauge.set({ upstream: node.address }, node.latestHeight);
      },
    });
  }

  /** The observer of one node's client; `view` is read at scrape time. */
  forNode(view: NodeView, nodeAnswered: (answered: boolean) => void): UpstreamObserver {
    this.nodes.push(view);
    const upstream = view.address;
    const replacements = this.replacements.labels(upstream);
    replacements.inc(0);
    const [host, port] = [
      upstream.slice(0, upstream.lastIndexOf(':')),
      Number(upstream.slice(upstream.lastIndexOf(':') + 1)),
    ];
    const tracer = this.tracer;
    return {
      startSpan: tracer
        ? (path) => {
            const [service, method] = this.namesOf(path);
            return tracer.startChild(`${service}/${method}`, 'client', {
              'rpc.system': 'grpc',
              'rpc.service': service,
              'rpc.method': method,
              'server.address': host,
              'server.port': port,
            });
          }
        : undefined,
      callEnded: (path, code, seconds) => {
        const [service, method] = this.namesOf(path);
        this.calls.observe({ upstream, grpc_service: service, method, code: status[code] ?? code }, seconds);
      },
      nodeAnswered,
      channelReplaced: () => replacements.inc(),
    };
  }

  failedOver(upstream: string): void {
    this.failovers.labels(upstream).inc();
  }

  hedged(upstream: string): void {
    this.hedges.labels(upstream).inc();
  }

  watchReflection(upstream: () => string, current: () => ReflectionState): void {
    this.metrics.gauge({
      name: 'dmrv_protocol_reflection_state',
      help: 'What gRPC reflection last said about the chain node (1 = current state)',
      labelNames: ['upstream', 'state'],
      collect: (gauge) => {
        const kind = current().kind;
        for (const state of REFLECTION_STATES)
          gauge.set({ upstream: upstream(), state }, state === kind ? 1 : 0);
      },
    });
    this.metrics.gauge({
      name: 'dmrv_protocol_reflection_services',
      help: 'Services the chain node listed through reflection (0 when it has not listed any)',
      labelNames: ['upstream'],
      collect: (gauge) => {
        const state = current();
        gauge.set({ upstream: upstream() }, state.kind === 'known' ? state.services.size : 0);
      },
    });
  }

  /** `/ixo.entity.v1beta1.Query/Entity` → service and method, split once per path. */
  private namesOf(path: string): [string, string] {
    let names = this.names.get(path);
    if (names === undefined) {
      const slash = path.lastIndexOf('/');
      names = [path.slice(1, slash), path.slice(slash + 1)];
      this.names.set(path, names);
    }
    return names;
  }
}
