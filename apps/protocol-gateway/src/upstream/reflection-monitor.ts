import { ClientDuplexStream, ServiceError, status } from '@grpc/grpc-js';
import { Logger } from '@nestjs/common';
import { loadProtoRoot, REFLECTION_PROTO_FILE, REFLECTION_SERVICE } from '@dmrv/proto';
import type { Type } from 'protobufjs';
import { UpstreamClient } from './upstream-client';

export type ReflectionState =
  /**
   * The node listed its services, and handed out the file descriptors of those it could describe (with their
   * `google.api.http` rules): the route table is built from them.
   */
  | {
      kind: 'known';
      services: ReadonlySet<string>;
      descriptors: readonly Uint8Array[];
      /** The node's answers passed REFLECTION_MAX_BYTES: they were not read to the end, and `descriptors` is empty. */
      tooLarge: boolean;
      checkedAt: Date;
    }
  /** The node does not offer reflection: every call is forwarded and UNIMPLEMENTED comes back from the node. */
  | { kind: 'unsupported'; checkedAt: Date }
  /** Not asked yet, or the node could not be reached the last time: forward (the call will tell). */
  | { kind: 'unknown' };

type Plain = Record<string, unknown>;

interface ReflectionResponse {
  list_services_response?: { service?: Array<{ name?: string }> };
  file_descriptor_response?: { file_descriptor_proto?: Uint8Array[] };
  error_response?: { error_code?: number; error_message?: string };
}

// Services every gRPC server may list that carry no query route: not asked for descriptors.
const INFRASTRUCTURE = /^grpc\./;

/** The node's answers on one reflection stream passed the byte limit. */
class TooLarge extends Error {
  constructor(limit: number) {
    super(`reflection answers larger than ${limit} bytes`);
    this.name = 'TooLarge';
  }
}

/**
 * Learns which services the chain node serves and how, through gRPC server reflection (v1alpha, which Cosmos nodes
 * expose), at start-up and then periodically: the list of services, then the file descriptors of each one (a node
 * built from newer protos, or with modules we were not built with, describes its own routes and messages). A route
 * whose service the node does not list is answered 501 without a call.
 */
export class ReflectionMonitor {
  private state: ReflectionState = { kind: 'unknown' };
  private readonly requestType: Type;
  private readonly responseType: Type;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: Array<(state: ReflectionState) => void> = [];
  private readonly logger = new Logger('ReflectionMonitor');

  constructor(
    /** The client of the node to ask (with several nodes, the first one that is up). */
    private readonly upstream: () => UpstreamClient,
    private readonly deadlineMs: number,
    /** Most bytes read from the node's answers in one refresh (REFLECTION_MAX_BYTES). */
    private readonly maxBytes: number = Number.POSITIVE_INFINITY,
  ) {
    const root = loadProtoRoot([REFLECTION_PROTO_FILE]);
    this.requestType = root.lookupType('grpc.reflection.v1alpha.ServerReflectionRequest');
    this.responseType = root.lookupType('grpc.reflection.v1alpha.ServerReflectionResponse');
  }

  get current(): ReflectionState {
    return this.state;
  }

  /** false only when the node listed its services and this one is not among them. */
  isServed(service: string): boolean {
    return this.state.kind !== 'known' || this.state.services.has(service);
  }

  /** Called after every refresh that reached the node (the route table is rebuilt from it). */
  onRefresh(listener: (state: ReflectionState) => void): void {
    this.listeners.push(listener);
  }

  start(refreshMs: number): void {
    if (refreshMs > 0) {
      // refresh() does not reject; the catch is there so that nothing a timer starts can end the process.
      this.timer = setInterval(() => {
        this.refresh().catch((error: unknown) =>
          this.logger.error({ err: error }, 'reflection refresh failed'),
        );
      }, refreshMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Asks the node once; keeps the last answer when the node cannot be reached. Never rejects: whatever the node
   * answers, and whatever a listener throws, is logged, so that a refresh from a timer cannot end the process.
   */
  async refresh(): Promise<ReflectionState> {
    try {
      this.state = await this.ask();
    } catch (error) {
      const code = (error as Partial<ServiceError> | undefined)?.code;
      if (code !== status.UNIMPLEMENTED) {
        this.logger.debug({ err: error }, 'reflection did not answer; keeping what it said last');
        return this.state;
      }
      this.state = { kind: 'unsupported', checkedAt: new Date() };
    }
    for (const listener of this.listeners) {
      try {
        listener(this.state);
      } catch (error) {
        this.logger.error({ err: error }, 'a listener of the reflection refresh failed');
      }
    }
    return this.state;
  }

  private async ask(): Promise<ReflectionState> {
    const budget = { left: this.maxBytes };
    const [listing] = await this.exchange([{ host: '', list_services: '*' }], budget);
    failOnError(listing);
    const services = (listing?.list_services_response?.service ?? [])
      .map((service) => service.name ?? '')
      .filter(Boolean);
    const described = services.filter((name) => !INFRASTRUCTURE.test(name));
    let answers: ReflectionResponse[];
    try {
      answers = await this.exchange(
        described.map((name) => ({ host: '', file_containing_symbol: name })),
        budget,
      );
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      return {
        kind: 'known',
        services: new Set(services),
        descriptors: [],
        tooLarge: true,
        checkedAt: new Date(),
      };
    }
    // A service the node cannot describe keeps its compiled-in routes (if we have any).
    const descriptors = answers.flatMap(
      (answer) => answer.file_descriptor_response?.file_descriptor_proto ?? [],
    );
    return {
      kind: 'known',
      services: new Set(services),
      descriptors,
      tooLarge: false,
      checkedAt: new Date(),
    };
  }

  /** Sends the requests on one reflection stream; resolves with one answer per request, in order. */
  private exchange(requests: Plain[], budget: { left: number }): Promise<ReflectionResponse[]> {
    if (requests.length === 0) return Promise.resolve([]);
    const path = `/${REFLECTION_SERVICE}/ServerReflectionInfo`;
    return new Promise<ReflectionResponse[]>((resolve, reject) => {
      const answers: ReflectionResponse[] = [];
      let settled = false;
      const settle = (error?: Error): void => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve(answers);
      };
      const stream: ClientDuplexStream<Plain, ReflectionResponse> = this.upstream().bidiStream(
        path,
        (value: Plain) => Buffer.from(this.requestType.encode(this.requestType.fromObject(value)).finish()),
        (bytes: Buffer) => {
          budget.left -= bytes.length;
          // Past the limit nothing more is decoded: an empty answer, and the stream is cancelled below.
          if (budget.left < 0) return {};
          return this.responseType.toObject(this.responseType.decode(bytes)) as ReflectionResponse;
        },
        this.deadlineMs,
      );
      stream.on('data', (response: ReflectionResponse) => {
        if (budget.left < 0) {
          settle(new TooLarge(this.maxBytes));
          stream.cancel();
          return;
        }
        answers.push(response);
        if (answers.length === requests.length) {
          stream.end();
          settle();
        }
      });
      stream.on('error', (error: ServiceError) => settle(error));
      stream.on('end', () => settle(new Error('reflection stream ended without every answer')));
      for (const request of requests) stream.write(request);
    });
  }
}

function failOnError(answer: ReflectionResponse | undefined): void {
  if (answer?.error_response) {
    throw Object.assign(new Error(answer.error_response.error_message ?? 'reflection error'), {
      code: answer.error_response.error_code,
    });
  }
}
