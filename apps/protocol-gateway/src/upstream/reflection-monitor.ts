import { ClientDuplexStream, ServiceError, status } from '@grpc/grpc-js';
import { loadProtoRoot, REFLECTION_PROTO_FILE, REFLECTION_SERVICE } from '@dmrv/proto';
import type { Type } from 'protobufjs';
import { UpstreamClient } from './upstream-client';

export type ReflectionState =
  /** The node listed its services. */
  | { kind: 'known'; services: ReadonlySet<string>; checkedAt: Date }
  /** The node does not offer reflection: every call is forwarded and UNIMPLEMENTED comes back from the node. */
  | { kind: 'unsupported'; checkedAt: Date }
  /** Not asked yet, or the node could not be reached the last time: forward (the call will tell). */
  | { kind: 'unknown' };

interface ListServicesResponse {
  list_services_response?: { service?: Array<{ name?: string }> };
  error_response?: { error_code?: number; error_message?: string };
}

/**
 * Learns which services the chain node serves, through gRPC server reflection (v1alpha, which Cosmos nodes
 * expose), at start-up and then periodically. A route whose service the node does not list is answered 501
 * without a call.
 */
export class ReflectionMonitor {
  private state: ReflectionState = { kind: 'unknown' };
  private readonly requestType: Type;
  private readonly responseType: Type;
  private timer: NodeJS.Timeout | undefined;

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
      const services = await this.listServices();
      this.state = { kind: 'known', services: new Set(services), checkedAt: new Date() };
    } catch (error) {
      const code = (error as Partial<ServiceError>).code;
      if (code === status.UNIMPLEMENTED) this.state = { kind: 'unsupported', checkedAt: new Date() };
    }
    return this.state;
  }

  private listServices(): Promise<string[]> {
    const path = `/${REFLECTION_SERVICE}/ServerReflectionInfo`;
    return new Promise<string[]>((resolve, reject) => {
      let settled = false;
      const stream: ClientDuplexStream<
        Record<string, unknown>,
        ListServicesResponse
      > = this.upstream().bidiStream(
        path,
        (value: Record<string, unknown>) =>
          Buffer.from(this.requestType.encode(this.requestType.fromObject(value)).finish()),
        (bytes: Buffer) =>
          this.responseType.toObject(this.responseType.decode(bytes)) as ListServicesResponse,
        this.deadlineMs,
      );
      stream.on('data', (response: ListServicesResponse) => {
        if (settled) return;
        settled = true;
        stream.end();
        if (response.error_response) {
          reject(
            Object.assign(new Error(response.error_response.error_message ?? 'reflection error'), {
              code: response.error_response.error_code,
            }),
          );
          return;
        }
        resolve(
          (response.list_services_response?.service ?? [])
            .map((service) => service.name ?? '')
            .filter(Boolean),
        );
      });
      stream.on('error', (error: ServiceError) => {
        if (settled) return;
        settled = true;
        reject(error);
      });
      stream.on('end', () => {
        if (settled) return;
        settled = true;
        reject(new Error('reflection stream ended without an answer'));
      });
      stream.write({ host: '', list_services: '*' });
    });
  }
}
