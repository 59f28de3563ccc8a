import { Metadata, status } from '@grpc/grpc-js';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { UnaryResult, UpstreamCallError, UpstreamClient } from './upstream-client';
import { NodeView, UpstreamMetrics } from './upstream-metrics';

export const BLOCK_HEIGHT_METADATA = 'x-cosmos-block-height';

/**
 * What a Cosmos node answers for a height it does not hold: INVALID_ARGUMENT with "cannot query with height in the
 * future" (not there yet) or "failed to load state at height N; version does not exist" (pruned). Another node may
 * hold it, so the request moves on instead of failing.
 */
const HEIGHT_NOT_HELD = /height in the future|failed to load state at height|version does not exist/i;

/** Why a request leaves a node for the next one; undefined: the answer stands. */
type FailoverReason = 'unreachable' | 'height-not-held';

function failoverReason(
  error: UpstreamCallError,
  pinnedHeight: number | undefined,
): FailoverReason | undefined {
  // Queries are read-only, so a call the node may or may not have started is safe to make again elsewhere.
  // CANCELLED reaches us only when the node's side closed the stream (the gateway never cancels a call).
  if (error.code === status.UNAVAILABLE || error.code === status.CANCELLED) return 'unreachable';
  if (
    pinnedHeight !== undefined &&
    error.code === status.INVALID_ARGUMENT &&
    HEIGHT_NOT_HELD.test(error.details)
  )
    return 'height-not-held';
  return undefined;
}

function reportedHeight(metadata: Metadata): number | undefined {
  const value = metadata.get(BLOCK_HEIGHT_METADATA)[0];
  if (value === undefined) return undefined;
  const height = Number(String(value));
  return Number.isSafeInteger(height) && height > 0 ? height : undefined;
}

/** One node of GRPC_UPSTREAM: its client and what the gateway has learnt about it. */
export class UpstreamNode implements NodeView {
  answered: 0 | 1 | undefined;
  latestHeight: number | undefined;
  /** The highest height the node said it no longer holds (pruned): it holds none at or below it. */
  prunedAt: number | undefined;
  /** The lowest height the node said it has not reached yet, until it reports a latest height at or past it. */
  notYet: number | undefined;
  readonly client: UpstreamClient;

  constructor(
    readonly address: string,
    config: ProtocolGatewayConfig,
    metrics: UpstreamMetrics,
  ) {
    this.client = new UpstreamClient(
      config,
      address,
      metrics.forNode(this, (answered) => {
        this.answered = answered ? 1 : 0;
      }),
    );
  }

  /** Not known to be down: it answered its last call, or has not been called yet. */
  get up(): boolean {
    return this.answered !== 0;
  }

  /** Whether the node may answer at this height, from what it said so far (unknown counts as yes). */
  mayHold(height: number): boolean {
    return (
      (this.latestHeight === undefined || this.latestHeight >= height) &&
      (this.prunedAt === undefined || height > this.prunedAt) &&
      (this.notYet === undefined || height < this.notYet)
    );
  }

  heard(metadata: Metadata): void {
    const height = reportedHeight(metadata);
    if (height === undefined || (this.latestHeight !== undefined && height <= this.latestHeight)) return;
    this.latestHeight = height;
    if (this.notYet !== undefined && height >= this.notYet) this.notYet = undefined;
  }
}

/**
 * The chain nodes of GRPC_UPSTREAM. A request goes to the next node in turn among those that are up (and, for a
 * request pinned to a height, that may hold it); when the node is unreachable, or says it does not hold the pinned
 * height, the same call goes to the next one within what is left of the request's deadline, so a node going down
 * costs no request as long as another one answers. Nodes known to be down are tried last rather than never: with
 * every node marked down, the call still tells.
 */
export class UpstreamPool {
  readonly nodes: readonly UpstreamNode[];
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: ProtocolGatewayConfig,
    private readonly metrics: UpstreamMetrics,
  ) {
    this.nodes = config.GRPC_UPSTREAM.map((address) => new UpstreamNode(address, config, metrics));
  }

  get deadlineMs(): number {
    return this.config.UPSTREAM_DEADLINE_MS;
  }

  /** The node reflection and other single-node questions go to: the first of the list that is not down. */
  get primary(): UpstreamNode {
    return this.nodes.find((node) => node.up) ?? this.nodes[0]!;
  }

  /**
   * A unary call on the first node that answers it; rejects with the last node's UpstreamCallError. A node that says
   * it cannot answer (unreachable, or without the pinned height) hands the call to the next node at once; a node
   * that says nothing for UPSTREAM_HEDGE_MS (gone silent without a reset, or very slow) gets the same call sent to
   * the next node as well, and the first answer wins, all within the request's one deadline. Queries are read-only,
   * so asking two nodes the same question is safe.
   */
  unary(path: string, request: Buffer, metadata: Metadata): Promise<UnaryResult> {
    const deadline = Date.now() + this.config.UPSTREAM_DEADLINE_MS;
    const pinned = reportedHeight(metadata);
    const order = this.order(pinned);
    const hedgeMs = this.config.UPSTREAM_HEDGE_MS;
    return new Promise<UnaryResult>((resolve, reject) => {
      let next = 0;
      let inFlight = 0;
      let settled = false;
      let hedge: NodeJS.Timeout | undefined;
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(hedge);
        finish();
      };
      const more = (): boolean => next < order.length && Date.now() < deadline;
      const armHedge = (waitingOn: UpstreamNode): void => {
        clearTimeout(hedge);
        if (hedgeMs === 0 || !more()) return;
        hedge = setTimeout(() => {
          if (settled || !more()) return;
          this.metrics.hedged(waitingOn.address);
          launch();
        }, hedgeMs);
      };
      const launch = (): void => {
        const node = order[next]!;
        next += 1;
        inFlight += 1;
        armHedge(node);
        node.client.unary(path, request, metadata, Math.max(1, deadline - Date.now())).then(
          (result) => {
            inFlight -= 1;
            node.heard(result.headers);
            settle(() => resolve(result));
          },
          (error: unknown) => {
            inFlight -= 1;
            if (!(error instanceof UpstreamCallError)) return settle(() => reject(error));
            node.heard(error.headers);
            if (settled) return;
            const reason = failoverReason(error, pinned);
            if (reason === undefined) return settle(() => reject(error));
            if (reason === 'height-not-held' && pinned !== undefined) this.learnMissing(node, pinned, error);
            if (more()) {
              this.metrics.failedOver(node.address);
              launch();
            } else if (inFlight === 0) settle(() => reject(error));
          },
        );
      };
      launch();
    });
  }

  /** Checks every node's gRPC health now; the outcome is recorded on each node (and in its metrics). */
  checkHealth(check: (client: UpstreamClient) => Promise<void>): Promise<PromiseSettledResult<void>[]> {
    return Promise.allSettled(this.nodes.map((node) => check(node.client)));
  }

  /** With several nodes, checks them in the background so that requests stop going to one that went down. */
  startHealthChecks(check: (client: UpstreamClient) => Promise<void>): void {
    if (this.nodes.length < 2) return;
    this.timer = setInterval(() => void this.checkHealth(check), this.config.UPSTREAM_HEALTH_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const node of this.nodes) node.client.close();
  }

  /** Round robin over the nodes, then stably: up and may hold the height, up, down. */
  private order(pinned: number | undefined): UpstreamNode[] {
    const count = this.nodes.length;
    if (count === 1) return [this.nodes[0]!];
    const start = this.turn;
    this.turn = (this.turn + 1) % count;
    const rotated = [...this.nodes.slice(start), ...this.nodes.slice(0, start)];
    const rank = (node: UpstreamNode): number =>
      (node.up ? 0 : 2) + (pinned !== undefined && !node.mayHold(pinned) ? 1 : 0);
    return rotated.sort((a, b) => rank(a) - rank(b));
  }

  private learnMissing(node: UpstreamNode, pinned: number, error: UpstreamCallError): void {
    if (/in the future/i.test(error.details)) {
      if (node.notYet === undefined || pinned < node.notYet) node.notYet = pinned;
    } else if (node.prunedAt === undefined || pinned > node.prunedAt) node.prunedAt = pinned;
  }
}
