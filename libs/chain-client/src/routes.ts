import type { components, paths } from './openapi.generated.js';

/** A route of the chain's REST API (`/ixo/claims/claims`, `/ixo/entity/{id}` …). */
export type ChainPath = keyof paths;

/** The operation behind a route. */
type Operation<P extends ChainPath> = paths[P]['get'];

/**
 * A route's path and query parameters, named and typed as the gateway takes them (`pagination.limit` …); `header`
 * and `cookie` are `never`.
 */
export type RouteParameters<P extends ChainPath> = Operation<P>['parameters'];

/** A route's answer, exactly as the gateway and a node print it (proto field names, 64-bit integers as strings …). */
export type ChainAnswer<P extends ChainPath> = Operation<P>['responses'][200]['content']['application/json'];

/** A message of the chain by its full proto name: `Schema<'ixo.claims.v1beta1.Claim'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The error body of every failure: `{code, message, details}` with the gRPC status code. */
export type GrpcStatusBody = components['schemas']['GrpcStatusError'];

/** Routes that page with `pagination.key` / `next_key`. */
export type PagedPath = {
  [P in ChainPath]: [NonNullable<RouteParameters<P>['query']>] extends [never]
    ? never
    : 'pagination.key' extends keyof NonNullable<RouteParameters<P>['query']>
      ? P
      : never;
}[ChainPath];

/**
 * `params` may be left out only where the route has no path parameter: the rest spreads as an optional or a required
 * argument.
 */
export type WithParams<P extends ChainPath, Options> =
  object extends RouteParameters<P>
    ? [options?: Options & { params?: RouteParameters<P> }]
    : [options: Options & { params: RouteParameters<P> }];
