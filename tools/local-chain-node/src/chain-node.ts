import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import { join } from 'node:path';
import {
  HEALTH_PROTO_FILE,
  HEALTH_SERVICE,
  loadProtoRoot,
  PROTO_ROOT,
  QUERY_PROTO_FILES,
  QUERY_SERVICES,
} from '@dmrv/proto';
import { buildHandlers } from './handlers';
import { addHealth } from './health-service';
import { moduleOf, QueryCallContext, queryImplementation } from './query-calls';
import { addReflection, AdvertisedDescriptors } from './reflection';
import { buildSeed, SeedData } from './seed';
import { definitionOf } from './service-definition';

export { selectorMatches } from './query-calls';

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

const SHUTDOWN_GRACE_MS = 2000;

/** The services the node serves: the chain's modules and the extra ones, less those left out. */
function servedServices(options: LocalChainNodeOptions): string[] {
  const extra = (options.extraModules ?? ['bank']).map((name) => EXTRA_MODULES[name]);
  const omitted = options.omitServices ?? [];
  return [...QUERY_SERVICES, ...extra.map((module) => module.service)].filter(
    (name) => !omitted.some((selector) => selector === name || selector === moduleOf(name)),
  );
}

function bind(server: Server, host: string, options: LocalChainNodeOptions): Promise<number> {
  const credentials = options.tls
    ? ServerCredentials.createSsl(
        null,
        [{ cert_chain: options.tls.certChain, private_key: options.tls.privateKey }],
        false,
      )
    : ServerCredentials.createInsecure();
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port ?? 0}`, credentials, (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

/** A graceful stop, forced after a short grace: open health watches never end on their own. */
function stopper(server: Server): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= new Promise<void>((resolve) => {
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
}

/** Starts the node; resolves once it accepts connections. */
export async function startLocalChainNode(options: LocalChainNodeOptions = {}): Promise<LocalChainNode> {
  const host = options.host ?? '127.0.0.1';
  const seed = buildSeed();
  const context: QueryCallContext = {
    latest: options.blockHeight ?? seed.blockHeight,
    earliest: options.earliestHeight ?? 1,
    delayMs: options.delayMs,
    slowMethods: options.slowMethods,
    failures: options.failures,
    calls: new Map(),
    lastMetadata: new Map(),
  };
  const extra = (options.extraModules ?? ['bank']).map((name) => EXTRA_MODULES[name]);
  const root = loadProtoRoot(
    [...QUERY_PROTO_FILES, HEALTH_PROTO_FILE, ...extra.map((module) => module.file)],
    [PROTO_ROOT, NODE_PROTO_ROOT],
  );
  const handlers = buildHandlers(seed);
  const served = servedServices(options);
  const server = new Server();
  for (const serviceName of served) {
    const service = root.lookupService(serviceName);
    server.addService(
      definitionOf(service),
      queryImplementation(service, handlers[serviceName] ?? {}, context),
    );
  }
  addHealth(server, root, served);
  if (options.reflection !== false)
    addReflection(server, root, [...served, HEALTH_SERVICE], options.advertise);
  const port = await bind(server, host, options);
  return {
    host,
    port,
    address: `${host}:${port}`,
    services: [...served],
    seed,
    calls: context.calls,
    lastMetadata: context.lastMetadata,
    stop: stopper(server),
    kill: () => server.forceShutdown(),
  };
}
