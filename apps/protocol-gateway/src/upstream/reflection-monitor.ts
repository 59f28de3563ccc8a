import { ClientDuplexStream, ServiceError, status } from '@grpc/grpc-js';
import { loadProtoRoot, REFLECTION_PROTO_FILE, REFLECTION_SERVICE } from '@dmrv/proto';
import type { Type } from 'protobufjs';
import { UpstreamClient } from './upstream-client';

export type ReflectionState =
  /**
   * The node listed its services, and handed out the file descriptors of those it could describe (with their
   * `google.api.http` rules): the route table is built from them.
   */
  | { kind: 'known'; services: ReadonlySet<string>; descriptors: readonly Uint8Array[]; checkedAt: Date }
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

  constructor(
    /** The client of the node to ask (with several nodes, the first one that is up). */
    private readonly upstream: () => UpstreamClient,
    private readonly deadlineMs: number,
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
      this.timer = setInterval(() => void this.refresh(), refreshMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Asks the node once; keeps the last answer when the node cannot be reached. */
  async refresh(): Promise<ReflectionState> {
    try {
      const [listing] = await this.exchange([{ host: '', list_services: '*' }]);
      failOnError(listing);
      const services = (listing?.list_services_response?.service ?? [])
        .map((service) => service.name ?? '')
        .filter(Boolean);
      const described = services.filter((name) => !INFRASTRUCTURE.test(name));
      const answers = await this.exchange(
        described.map((name) => ({ host: '', file_containing_symbol: name })),
      );
      // A service the node cannot describe keeps its compiled-in routes (if we have any).
      const descriptors = answers.flatMap(
        (answer) => answer.file_descriptor_response?.file_descriptor_proto ?? [],
      );
      this.state = { kind: 'known', services: new Set(services), descriptors, checkedAt: new Date() };
    } catch (error) {
      const code = (error as Partial<ServiceError>).code;
      if (code !== status.UNIMPLEMENTED) return this.state;
      this.state = { kind: 'unsupported', checkedAt: new Date() };
    }
    for (const listener of this.listeners) listener(this.state);
    return this.state;
  }

  /** Sends the requests on one reflection stream; resolves with one answer per request, in order. */
  private exchange(requests: Plain[]): Promise<ReflectionResponse[]> {
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
        (bytes: Buffer) => this.responseType.toObject(this.responseType.decode(bytes)) as ReflectionResponse,
        this.deadlineMs,
      );
      stream.on('data', (response: ReflectionResponse) => {
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
