import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import type { Histogram } from 'prom-client';
import type { Metrics } from './metrics';

/** The route label of a request that matched no route (a 404 from the router): never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** A route with this in its `config` is left out of the HTTP metrics and the access log (the metrics route itself). */
export const UNOBSERVED = 'dmrvUnobserved';

// A request decoration, declared once so every request keeps one shape: the route label, null until a route claims
// the request (so null at the end means unmatched), false for an unobserved route.
const ROUTE_LABEL = 'metricsRoute';

interface Labelled {
  [ROUTE_LABEL]: string | null | false;
}

/**
 * Names the route of a request whose Fastify route is a catch-all (the protocol gateway's one route serves every
 * RPC): the template it resolved to, e.g. `/ixo/entity/{id}`, or UNMATCHED_ROUTE. Never a raw path: every distinct
 * label value is a series kept for the life of the process.
 */
export function setMetricsRoute(request: object, template: string): void {
  (request as Labelled)[ROUTE_LABEL] = template;
}

/** Request latencies in seconds, for an API answered in milliseconds: 1 ms … 10 s. */
export const HTTP_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * `dmrv_http_request_duration_seconds{route, method, status}`: one observation per answered request, labelled with
 * the route template Fastify matched (`/v1/households/:id`), never the raw path. Its counts are also exported as
 * `dmrv_http_requests_total{route, method, status}`, read from the histogram when scraped.
 *
 * The label is written onto the request by a route-level hook that every route gets when it is registered (Fastify's
 * `onRoute`): reading `request.routeOptions` instead builds a fresh object on every access.
 */
export class HttpMetrics {
  private readonly requests: Histogram;

  constructor(metrics: Metrics) {
    this.requests = metrics.histogram(
      'dmrv_http_request_duration_seconds',
      'HTTP requests answered, by route template, method and status, and how long they took',
      ['route', 'method', 'status'],
      HTTP_BUCKETS,
      {
        name: 'dmrv_http_requests_total',
        help: 'HTTP requests answered, by route template, method and status',
      },
    );
  }

  /** Before any route is registered: labels every route's requests as they arrive. */
  install(fastify: FastifyInstance): void {
    fastify.decorateRequest(ROUTE_LABEL, null);
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const config = route.config as Record<string, unknown> | undefined;
      const label: string | false = config?.[UNOBSERVED] === true ? false : route.url;
      const mark: onRequestHookHandler = (request, _reply, done) => {
        (request as unknown as Labelled)[ROUTE_LABEL] = label;
        done();
      };
      const own = route.onRequest;
      route.onRequest = own === undefined ? [mark] : [mark, ...(Array.isArray(own) ? own : [own])];
    });
  }

  /** Whether the request counts at all: false for the metrics route, which is neither measured nor logged. */
  isObserved(request: FastifyRequest): boolean {
    return (request as unknown as Labelled)[ROUTE_LABEL] !== false;
  }

  /** One observation for an answered request (call from `onResponse`). */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const label = (request as unknown as Labelled)[ROUTE_LABEL];
    if (label === false) return;
    this.requests.observe(
      { route: label ?? UNMATCHED_ROUTE, method: request.method, status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  }

  /** The route label of a request, for the request's trace span: the same one the metrics use. */
  routeOf(request: FastifyRequest): string {
    const label = (request as unknown as Labelled)[ROUTE_LABEL];
    return typeof label === 'string' ? label : UNMATCHED_ROUTE;
  }
}
