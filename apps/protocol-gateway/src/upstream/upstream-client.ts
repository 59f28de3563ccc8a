import { readFileSync } from 'node:fs';
import {
  Client,
  ChannelCredentials,
  credentials,
  Metadata,
  ServiceError,
  status,
  StatusObject,
} from '@grpc/grpc-js';
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

const identity = (value: Buffer): Buffer => value;

function channelCredentials(config: ProtocolGatewayConfig): ChannelCredentials {
  if (!config.UPSTREAM_TLS) return credentials.createInsecure();
  const ca = config.UPSTREAM_TLS_CA_FILE ? readFileSync(config.UPSTREAM_TLS_CA_FILE) : null;
  return credentials.createSsl(ca);
}

/**
 * One gRPC channel to the chain node for the whole process (HTTP/2 multiplexes every request over it), with
 * keepalive, optional TLS and a deadline on every call. Requests and responses travel as bytes: the transcoder
 * encodes and decodes them with the descriptors it routed by.
 */
export class UpstreamClient {
  readonly target: string;
  private readonly client: Client;

  constructor(private readonly config: ProtocolGatewayConfig) {
    this.target = config.GRPC_UPSTREAM;
    this.client = new Client(config.GRPC_UPSTREAM, channelCredentials(config), {
      'grpc.keepalive_time_ms': config.UPSTREAM_KEEPALIVE_MS,
      'grpc.keepalive_timeout_ms': 20_000,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.max_receive_message_length': config.UPSTREAM_MAX_MESSAGE_BYTES,
      // Reconnect quickly once a restarted node is back; grpc-js' default backoff starts at 1 s anyway.
      'grpc.initial_reconnect_backoff_ms': 250,
      'grpc.max_reconnect_backoff_ms': 5_000,
      ...(config.UPSTREAM_TLS_SERVER_NAME
        ? { 'grpc.ssl_target_name_override': config.UPSTREAM_TLS_SERVER_NAME }
        : {}),
    });
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
    return new Promise<UnaryResult>((resolve, reject) => {
      let headers = new Metadata();
      let outcome: { error: ServiceError | null; response?: Buffer } | undefined;
      const call = this.client.makeUnaryRequest<Buffer, Buffer>(
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
      });
      // grpc-js emits 'status' right after the callback; only here are the trailers of a successful call known.
      call.on('status', (final: StatusObject) => {
        if (outcome?.error || final.code !== status.OK || !outcome?.response) {
          reject(new UpstreamCallError(final.code, final.details, headers, final.metadata));
          return;
        }
        resolve({ response: outcome.response, headers, trailers: final.metadata });
      });
    });
  }

  /** For the reflection monitor: a bidirectional stream on the same channel. */
  get channelClient(): Client {
    return this.client;
  }

  close(): void {
    this.client.close();
  }
}
