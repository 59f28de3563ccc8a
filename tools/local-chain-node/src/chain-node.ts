import {
  Metadata,
  Server,
  ServerCredentials,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
  sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { join } from 'node:path';
import {
  HEALTH_PROTO_FILE,
  HEALTH_SERVICE,
  loadProtoRoot,
  PROTO_ROOT,
  QUERY_PROTO_FILES,
  QUERY_SERVICES,
} from '@dmrv/proto';
import type { Message, Method, Service, Type } from 'protobufjs';
import { buildHandlers, QueryHandler } from './handlers';
import { ChainNodeError } from './paginate';
import { addReflection, AdvertisedDescriptors } from './reflection';
import { buildSeed, SeedData } from './seed';

export interface LocalChainNodeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port (tests); the CLI defaults to 9090. */
  port?: number;
  /** Services to leave out, by full name (`ixo.token.v1beta1.Query`) or module (`token`). */
  omitServices?: readonly string[];
  /** Delay before answering, in milliseconds. */
  delayMs?: number;
  /** Methods the delay applies to (selectors, see README); empty: every query method. */
  slowMethods?: readonly string[];
  /** Selector → gRPC status code to answer with instead of the data (`*` for every query method). */
  failures?: ReadonlyMap<string, status>;
  /**
   * Modules outside `ixo.*` the gateway is not built with (it learns them through reflection): `bank` (balances) and
   * `mint` (params). Default `['bank']`; a node restarted with `['bank', 'mint']` is an upgrade that adds routes.
   */
  extraModules?: readonly ExtraModule[];
  /** Serve gRPC server reflection (default true), as Cosmos nodes do. */
  reflection?: boolean;
  /** What reflection advertises beyond what the node serves: other HTTP rules, more services and files. */
  advertise?: AdvertisedDescriptors;
  /** Latest block height reported in `x-cosmos-block-height` (default from the seed). */
  blockHeight?: number;
  /** Lowest height still held, as on a pruning node: below it a pinned query fails as a node's does. */
  earliestHeight?: number;
  /** Serve over TLS with this certificate chain and key (PEM); plaintext otherwise. */
  tls?: { certChain: Buffer; privateKey: Buffer };
}

export interface LocalChainNode {
  host: string;
  port: number;
  /** `host:port`, the value for GRPC_UPSTREAM. */
  address: string;
  /** Services actually served (after omissions). */
  services: string[];
  seed: SeedData;
  /** Query calls received so far (answered with data or an error), by `service/Method`. */
  readonly calls: ReadonlyMap<string, number>;
  /** The metadata of the last query call received, by `service/Method` (what reached the node, echoed or not). */
  readonly lastMetadata: ReadonlyMap<string, Readonly<Record<string, string>>>;
  stop(): Promise<void>;
  /** Stops at once, like a node that crashed: calls in flight are cut. */
  kill(): void;
}

/** This package's own protos: the modules of EXTRA_MODULES, which are not in libs/proto. */
const NODE_PROTO_ROOT = join(__dirname, '..', 'proto');

export const EXTRA_MODULES = {
  bank: { file: 'cosmos/bank/v1beta1/query.proto', service: 'cosmos.bank.v1beta1.Query' },
  mint: { file: 'cosmos/mint/v1beta1/query.proto', service: 'cosmos.mint.v1beta1.Query' },
} as const;
export type ExtraModule = keyof typeof EXTRA_MODULES;

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
const SHUTDOWN_GRACE_MS = 2000;

function moduleOf(service: string): string {
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

function definitionOf(service: Service): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methodsArray as Method[]) {
    const requestType = method.resolvedRequestType as Type;
    const responseType = method.resolvedResponseType as Type;
    definition[method.name] = {
      path: `/${service.fullName.slice(1)}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Message) => Buffer.from(requestType.encode(value).finish()),
      requestDeserialize: (bytes: Buffer) => requestType.decode(bytes),
      responseSerialize: (value: Record<string, unknown>) =>
        Buffer.from(responseType.encode(responseType.fromObject(value)).finish()),
      responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
    };
  }
  return definition as ServiceDefinition;
}

function errorOf(error: unknown): { code: status; details: string } {
  if (error instanceof ChainNodeError) return { code: error.code, details: error.message };
  return { code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}

/** Starts the node; resolves once it accepts connections. */
export async function startLocalChainNode(options: LocalChainNodeOptions = {}): Promise<LocalChainNode> {
  const host = options.host ?? '127.0.0.1';
  const seed = buildSeed();
  const latest = options.blockHeight ?? seed.blockHeight;
  const earliest = options.earliestHeight ?? 1;
  const calls = new Map<string, number>();
  const lastMetadata = new Map<string, Readonly<Record<string, string>>>();
  const extra = (options.extraModules ?? ['bank']).map((name) => EXTRA_MODULES[name]);
  const root = loadProtoRoot(
    [...QUERY_PROTO_FILES, HEALTH_PROTO_FILE, ...extra.map((module) => module.file)],
    [PROTO_ROOT, NODE_PROTO_ROOT],
  );
  const handlers = buildHandlers(seed);
  const omitted = options.omitServices ?? [];
  const served = [...QUERY_SERVICES, ...extra.map((module) => module.service)].filter(
    (name) => !omitted.some((selector) => selector === name || selector === moduleOf(name)),
  );
  const server = new Server();

  for (const serviceName of served) {
    const service = root.lookupService(serviceName);
    const own = handlers[serviceName] ?? {};
    const implementation: UntypedServiceImplementation = {};
    for (const method of service.methodsArray) {
      const handler: QueryHandler | undefined = own[method.name];
      // grpc-js answers UNIMPLEMENTED for methods left out of the implementation, like an older node.
      if (!handler) continue;
      const requestType = method.resolvedRequestType as Type;
      implementation[method.name] = (
        call: ServerUnaryCall<Message, unknown>,
        callback: sendUnaryData<unknown>,
      ) => {
        const fullMethod = `${serviceName}/${method.name}`;
        calls.set(fullMethod, (calls.get(fullMethod) ?? 0) + 1);
        lastMetadata.set(
          fullMethod,
          Object.fromEntries(
            Object.entries(call.metadata.getMap()).map(([key, value]) => [key, String(value)]),
          ),
        );
        void (async () => {
          try {
            const height = heightFor(call, latest, earliest);
            call.sendMetadata(responseMetadata(call, height));
            const slow =
              (options.delayMs ?? 0) > 0 &&
              (!options.slowMethods?.length ||
                options.slowMethods.some((s) => selectorMatches(s, serviceName, method.name)));
            if (slow) {
              await waitUnlessCancelled(call, options.delayMs ?? 0);
              if (call.cancelled) return;
            }
            const failure = failureFor(options.failures, serviceName, method.name);
            if (failure !== undefined)
              throw new ChainNodeError(failure, `injected failure for ${serviceName}/${method.name}`);
            const request = requestType.toObject(call.request, {
              longs: String,
              enums: Number,
              defaults: false,
            }) as Record<string, unknown>;
            callback(null, handler(request));
          } catch (error) {
            callback(errorOf(error));
          }
        })();
      };
    }
    server.addService(definitionOf(service), implementation);
  }

  const healthType = root.lookupService(HEALTH_SERVICE);
  const healthStatus = (name: string): number | undefined =>
    name === '' || served.includes(name) ? 1 : undefined;
  server.addService(definitionOf(healthType), {
    Check: (
      call: ServerUnaryCall<Message & { service?: string }, unknown>,
      callback: sendUnaryData<unknown>,
    ) => {
      const serving = healthStatus(call.request.service ?? '');
      if (serving === undefined) callback({ code: status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: serving });
    },
    Watch: (call: ServerWritableStream<Message & { service?: string }, unknown>) => {
      call.write({ status: healthStatus(call.request.service ?? '') ?? 3 });
      call.on('cancelled', () => call.end());
    },
  });

  if (options.reflection !== false)
    addReflection(server, root, [...served, HEALTH_SERVICE], options.advertise);

  const port = await new Promise<number>((resolve, reject) => {
    const serverCredentials = options.tls
      ? ServerCredentials.createSsl(
          null,
          [{ cert_chain: options.tls.certChain, private_key: options.tls.privateKey }],
          false,
        )
      : ServerCredentials.createInsecure();
    server.bindAsync(`${host}:${options.port ?? 0}`, serverCredentials, (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      // Open health watches never end on their own: force after a short grace.
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, SHUTDOWN_GRACE_MS);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    return stopping;
  };

  const kill = (): void => server.forceShutdown();

  return {
    host,
    port,
    address: `${host}:${port}`,
    services: [...served],
    seed,
    calls,
    lastMetadata,
    stop,
    kill,
  };
}
