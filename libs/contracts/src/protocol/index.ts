// Wire shapes of the protocol gateway shared by the app and its tests. Query responses themselves are defined by
// the chain's protos (libs/proto) and printed as a Cosmos node prints them; only the gateway's own bodies are here.

/** One REST route the gateway serves, as listed at `/`. */
export interface ProtocolRouteInfo {
  method: string;
  /** Path template as served, e.g. `/ixo/entity/{id}`. */
  path: string;
  /** Fully-qualified gRPC method, e.g. `ixo.entity.v1beta1.Query/Entity`. */
  rpc: string;
  /** Turned off by the operator (DISABLED_METHODS): answers 501. */
  disabled: boolean;
  /** Learnt from the node's own descriptors (`reflection`) or from the protos the gateway is built with. */
  source: 'reflection' | 'compiled-in';
}

/** Body of `GET /` of the protocol gateway. */
export interface ProtocolRootBody {
  service: 'protocol-gateway';
  description: string;
  /** Current route prefix, e.g. `/ixo`. */
  prefix: string;
  upstream: {
    /** What gRPC server reflection said: `known` (services listed), `unsupported`, or `unknown` (not reachable yet). */
    reflection: 'known' | 'unsupported' | 'unknown';
    services: string[] | null;
  };
  access: 'open' | 'api-key';
  /** Version of the route table: one more each time it changed (a node upgrade picked up through reflection). */
  routesVersion: number;
  routes: ProtocolRouteInfo[];
  health: string;
}
