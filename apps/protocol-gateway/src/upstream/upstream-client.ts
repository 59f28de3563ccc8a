import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import {
  ChannelCredentials,
  ChannelOptions,
  Client,
  ClientDuplexStream,
  credentials,
  Metadata,
  ServiceError,
  status,
  StatusObject,
} from '@grpc/grpc-js';
import type { ChildSpan } from '@dmrv/tracing';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';

export interface UnaryResult {
  response: Buffer;
  headers: Metadata;
  trailers: Metadata;
}

/** An upstream call that did not end with OK: the status, the message and any metadata the node sent. */
export class UpstreamCallError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly headers: Metadata,
    readonly trailers: Metadata,
  ) {
    super(`upstream answered ${status[code] ?? code}: ${details}`);
    this.name = 'UpstreamCallError';
  }
}

/** Told about every call to the node: metrics always, a span per call with tracing on. */
export interface UpstreamObserver {
  /** With tracing on: a client span for a unary call, child of the current request's span. */
  startSpan?(path: string): ChildSpan | undefined;
  callEnded(path: string, code: status, seconds: number): void;
  /** After each call: whether the node answered it (false: unreachable, or silent until the deadline). */
  nodeAnswered(answered: boolean): void;
  channelReplaced(): void;
}

const identity = (value: Buffer): Buffer => value;
// Read-only stand-in for the headers of a call that got none (the error path only reads it).
const NO_METADATA = new Metadata();

function channelCredentials(config: ProtocolGatewayConfig): ChannelCredentials {
  if (!config.UPSTREAM_TLS) return credentials.createInsecure();
  const ca = config.UPSTREAM_TLS_CA_FILE ? readFileSync(config.UPSTREAM_TLS_CA_FILE) : null;
  return credentials.createSsl(ca);
}

/** One gRPC channel and what the calls on it have seen. */
interface ChannelSlot {
  readonly client: Client;
  /** Calls started on this channel and not yet ended. */
  inFlight: number;
  /** Times the node answered on this channel (headers, or a status it sent); a call compares before and after. */
  answers: number;
  /** Replaced: takes no new calls and closes once its last call ended. */
  retired: boolean;
}

/**
 * The gRPC channel to one chain node (HTTP/2 multiplexes every request over it), with keepalive, optional TLS and a
 * deadline on every call. Requests and responses travel as bytes: the pipeline encodes and decodes them with the
 * descriptors it routed by.
 *
 * A connection can die without a reset (a NAT or firewall that drops its mapping, a peer that froze): grpc-js then
 * keeps the channel READY and every call waits out its deadline until a keepalive ping fails, which is minutes
 * away at the rate Cosmos nodes permit, and a reconnect that meets the same silence waits in CONNECTING until the
 * operating system gives up on the TCP connection (grpc-js has no connect timeout of its own). So a call that reaches its deadline without the node having answered anything
 * on that channel while it ran replaces the channel: new calls go to a fresh one (its own TCP connection), the old
 * one closes once its own calls have ended. A node that is merely slow on one method still answers the others in
 * between, which keeps its channel; replacing the channel of a slow node costs one connection per deadline.
 */
export class UpstreamClient {
  readonly target: string;
  private readonly logger = new Logger('Upstream');
  private readonly credentials: ChannelCredentials;
  private readonly options: ChannelOptions;
  private current: ChannelSlot;
  private readonly open = new Set<ChannelSlot>();
  private replaced = 0;

  constructor(
    private readonly config: ProtocolGatewayConfig,
    target: string,
    private readonly observer?: UpstreamObserver,
  ) {
    this.target = target;
    this.credentials = channelCredentials(config);
    this.options = {
      'grpc.keepalive_time_ms': config.UPSTREAM_KEEPALIVE_MS,
      'grpc.keepalive_timeout_ms': 20_000,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.max_receive_message_length': config.UPSTREAM_MAX_MESSAGE_BYTES,
      // Reconnect quickly once a restarted node is back; grpc-js' default backoff starts at 1 s anyway.
      'grpc.initial_reconnect_backoff_ms': 250,
      'grpc.max_reconnect_backoff_ms': 5_000,
      // grpc-js shares connections between channels with the same target and options through a process-wide
      // pool: a replacement channel would get the dead connection back. Each channel keeps its own.
      'grpc.use_local_subchannel_pool': 1,
      ...(config.UPSTREAM_TLS_SERVER_NAME
        ? { 'grpc.ssl_target_name_override': config.UPSTREAM_TLS_SERVER_NAME }
        : {}),
    };
    this.current = this.openChannel();
  }

  get deadlineMs(): number {
    return this.config.UPSTREAM_DEADLINE_MS;
  }

  /** A unary call; rejects with UpstreamCallError carrying the gRPC status. */
  unary(
    path: string,
    request: Buffer,
    metadata: Metadata,
    deadlineMs: number = this.config.UPSTREAM_DEADLINE_MS,
  ): Promise<UnaryResult> {
    const slot = this.current;
    const answersBefore = slot.answers;
    slot.inFlight += 1;
    const span = this.observer?.startSpan?.(path);
    // The chain node continues the request's trace from this call's span (W3C trace context as gRPC metadata).
    span?.inject((key, value) => metadata.set(key, value));
    const started = performance.now();
    return new Promise<UnaryResult>((resolve, reject) => {
      let headers = NO_METADATA;
      let outcome: { error: ServiceError | null; response?: Buffer } | undefined;
      const call = slot.client.makeUnaryRequest<Buffer, Buffer>(
        path,
        identity,
        identity,
        request,
        metadata,
        { deadline: Date.now() + deadlineMs },
        (error, response) => {
          outcome = { error, response };
        },
      );
      call.on('metadata', (received: Metadata) => {
        headers = received;
        slot.answers += 1;
      });
      // grpc-js emits 'status' right after the callback; only here are the trailers of a successful call known.
      call.on('status', (final: StatusObject) => {
        this.ended(slot, final.code, answersBefore);
        this.observer?.callEnded(path, final.code, (performance.now() - started) / 1000);
        span?.end(final.code === status.OK ? undefined : status[final.code]);
        if (outcome?.error || final.code !== status.OK || !outcome?.response) {
          reject(new UpstreamCallError(final.code, final.details, headers, final.metadata));
          return;
        }
        resolve({ response: outcome.response, headers, trailers: final.metadata });
      });
    });
  }

  /** A bidirectional stream (the reflection monitor's), on the current channel and watched like a unary call. */
  bidiStream<Request, Response>(
    path: string,
    serialize: (value: Request) => Buffer,
    deserialize: (bytes: Buffer) => Response,
    deadlineMs: number,
  ): ClientDuplexStream<Request, Response> {
    const slot = this.current;
    const answersBefore = slot.answers;
    slot.inFlight += 1;
    const stream = slot.client.makeBidiStreamRequest(path, serialize, deserialize, new Metadata(), {
      deadline: Date.now() + deadlineMs,
    });
    stream.on('metadata', () => {
      slot.answers += 1;
    });
    stream.on('status', (final: StatusObject) => this.ended(slot, final.code, answersBefore));
    return stream;
  }

  /** The current channel (tests wait for it to be ready). */
  get channelClient(): Client {
    return this.current.client;
  }

  close(): void {
    for (const slot of this.open) slot.client.close();
    this.open.clear();
  }

  private openChannel(): ChannelSlot {
    const slot: ChannelSlot = {
      client: new Client(this.target, this.credentials, this.options),
      inFlight: 0,
      answers: 0,
      retired: false,
    };
    this.open.add(slot);
    return slot;
  }

  private ended(slot: ChannelSlot, code: status, answersBefore: number): void {
    slot.inFlight -= 1;
    if (code === status.DEADLINE_EXCEEDED) {
      const silent = slot.answers === answersBefore;
      if (silent && slot === this.current) this.replace(slot);
      this.observer?.nodeAnswered(!silent);
    } else if (code === status.UNAVAILABLE) {
      this.observer?.nodeAnswered(false);
    } else if (code !== status.CANCELLED) {
      // Any other status was sent by the node (or is about bytes it sent): the connection carries answers.
      slot.answers += 1;
      this.observer?.nodeAnswered(true);
    }
    if (slot.retired && slot.inFlight === 0) {
      this.open.delete(slot);
      slot.client.close();
    }
  }

  private replace(slot: ChannelSlot): void {
    slot.retired = true;
    this.current = this.openChannel();
    this.replaced += 1;
    this.observer?.channelReplaced();
    this.logger.warn(
      { target: this.target, replacements: this.replaced },
      'a call met its deadline without any answer from the upstream on its connection: opening a new one',
    );
  }
}
