import {
  Metadata,
  ServerUnaryCall,
  sendUnaryData,
  status,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Message, Service, Type } from 'protobufjs';
import type { QueryHandler } from './handler-kit';
import { ChainNodeError } from './paginate';

// Call metadata the node does not echo back: transport and gRPC's own headers.
const NOT_ECHOED = new Set([
  'user-agent',
  'content-type',
  'te',
  'host',
  'accept-encoding',
  'grpc-accept-encoding',
  'x-cosmos-block-height',
]);
export function moduleOf(service: string): string {
  return service.split('.')[1] ?? service;
}

/** `*`, a module (`token`), a service (`ixo.token.v1beta1.Query`) or a method (`ixo.token.v1beta1.Query/Params`). */
export function selectorMatches(selector: string, service: string, method: string): boolean {
  return (
    selector === '*' ||
    selector === moduleOf(service) ||
    selector === service ||
    selector === `${service}/${method}`
  );
}

function failureFor(
  failures: ReadonlyMap<string, status> | undefined,
  service: string,
  method: string,
): status | undefined {
  if (!failures) return undefined;
  for (const [selector, code] of failures) if (selectorMatches(selector, service, method)) return code;
  return undefined;
}

function waitUnlessCancelled(call: ServerUnaryCall<unknown, unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    call.once('cancelled', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function heightFor(call: ServerUnaryCall<unknown, unknown>, latest: number, earliest: number): number {
  const requested = call.metadata.get('x-cosmos-block-height')[0];
  if (requested === undefined) return latest;
  const text = String(requested);
  if (!/^\d{1,15}$/.test(text))
    throw new ChainNodeError(status.INVALID_ARGUMENT, `invalid height header: ${text.slice(0, 32)}`);
  const height = Number(text);
  if (height > latest) {
    throw new ChainNodeError(
      status.INVALID_ARGUMENT,
      'cannot query with height in the future; please provide a valid height',
    );
  }
  if (height !== 0 && height < earliest) {
    throw new ChainNodeError(
      status.INVALID_ARGUMENT,
      `failed to load state at height ${height}; version does not exist (latest height: ${latest})`,
    );
  }
  return height === 0 ? latest : height;
}

function responseMetadata(call: ServerUnaryCall<unknown, unknown>, height: number): Metadata {
  const metadata = new Metadata();
  metadata.set('x-cosmos-block-height', String(height));
  for (const [key, value] of Object.entries(call.metadata.getMap())) {
    if (NOT_ECHOED.has(key) || key.startsWith('grpc-') || key.endsWith('-bin')) continue;
    metadata.set(`x-echo-${key}`, String(value));
  }
  return metadata;
}

function errorOf(error: unknown): { code: status; details: string } {
  if (error instanceof ChainNodeError) return { code: error.code, details: error.message };
  return { code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}

/** What a query call of the node reads and records besides its handler. */
export interface QueryCallContext {
  latest: number;
  earliest: number;
  delayMs?: number;
  slowMethods?: readonly string[];
  failures?: ReadonlyMap<string, status>;
  calls: Map<string, number>;
  lastMetadata: Map<string, Readonly<Record<string, string>>>;
}

function record(
  context: QueryCallContext,
  fullMethod: string,
  call: ServerUnaryCall<Message, unknown>,
): void {
  context.calls.set(fullMethod, (context.calls.get(fullMethod) ?? 0) + 1);
  context.lastMetadata.set(
    fullMethod,
    Object.fromEntries(Object.entries(call.metadata.getMap()).map(([key, value]) => [key, String(value)])),
  );
}

/** One call: its height, the delay and failure it is set up for, then the handler's answer or the error. */
async function answer(
  context: QueryCallContext,
  [serviceName, methodName]: readonly [string, string],
  requestType: Type,
  handler: QueryHandler,
  call: ServerUnaryCall<Message, unknown>,
): Promise<unknown> {
  const height = heightFor(call, context.latest, context.earliest);
  call.sendMetadata(responseMetadata(call, height));
  const slow =
    (context.delayMs ?? 0) > 0 &&
    (!context.slowMethods?.length ||
      context.slowMethods.some((selector) => selectorMatches(selector, serviceName, methodName)));
  if (slow) {
    await waitUnlessCancelled(call, context.delayMs ?? 0);
    if (call.cancelled) return undefined;
  }
  const failure = failureFor(context.failures, serviceName, methodName);
  if (failure !== undefined)
    throw new ChainNodeError(failure, `injected failure for ${serviceName}/${methodName}`);
  const request = requestType.toObject(call.request, {
    longs: String,
    enums: Number,
    defaults: false,
  }) as Record<string, unknown>;
  return handler(request);
}

/**
 * The implementation of `service`: each method with a handler; grpc-js answers UNIMPLEMENTED for the others, like an
 * older node.
 */
export function queryImplementation(
  service: Service,
  handlers: Readonly<Record<string, QueryHandler>>,
  context: QueryCallContext,
): UntypedServiceImplementation {
  const serviceName = service.fullName.slice(1);
  const implementation: UntypedServiceImplementation = {};
  for (const method of service.methodsArray) {
    const handler: QueryHandler | undefined = handlers[method.name];
    if (!handler) continue;
    const requestType = method.resolvedRequestType as Type;
    const names = [serviceName, method.name] as const;
    implementation[method.name] = (
      call: ServerUnaryCall<Message, unknown>,
      callback: sendUnaryData<unknown>,
    ) => {
      record(context, `${serviceName}/${method.name}`, call);
      void (async () => {
        try {
          const response = await answer(context, names, requestType, handler, call);
          // A call cancelled during its delay gets no answer.
          if (response !== undefined) callback(null, response);
        } catch (error) {
          callback(errorOf(error));
        }
      })();
    };
  }
  return implementation;
}
