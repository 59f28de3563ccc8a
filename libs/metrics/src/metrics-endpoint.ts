import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { UnauthenticatedError } from '@dmrv/errors';
import { UNOBSERVED } from './http-metrics';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Whether `authorization` is `Bearer <token>`. Both sides are hashed first, so the comparison takes the same time
 * whatever the length or the content of what was sent.
 */
export function bearerMatches(authorization: string | string[] | undefined, token: string): boolean {
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  const presented = match?.[1] ?? '';
  // Always compared, so a missing header costs what a wrong one does.
  return timingSafeEqual(digest(presented), digest(token)) && match !== null;
}

/**
 * `GET /metrics` on the service's own port, for a scraper that cannot reach a separate one: only with
 * `Authorization: Bearer <METRICS_TOKEN>`; otherwise a 401 in the app's error shape (the error goes through the app's
 * exception filter like any other). A plain Fastify route, outside Nest's guards: no rate limit counts it, and
 * `UNOBSERVED` keeps it out of the HTTP metrics and the access log.
 */
export function installMetricsRoute(fastify: FastifyInstance, metrics: Metrics, token: string): void {
  fastify.route({
    method: 'GET',
    url: METRICS_PATH,
    config: { [UNOBSERVED]: true },
    handler: async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) {
        throw new UnauthenticatedError('A valid metrics token is required', METRICS_CHALLENGE);
      }
      const text = await metrics.exposition();
      return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
    },
  });
}

/**
 * The separate plain listener on `METRICS_PORT` (what Kubernetes scrapes, through a port that is not published):
 * `GET /metrics` and nothing else, no authentication, no request log. A failed collection is a 500 with the reason
 * left out (it goes nowhere a scraper would show it to someone who should not see it).
 */
export class MetricsServer {
  private constructor(private readonly server: Server) {}

  static start(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
    const server = createServer((request, response) => void serve(metrics, request, response));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(new MetricsServer(server));
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      // A scraper's kept-alive connection must not hold the process open at shutdown.
      this.server.closeAllConnections();
    });
  }
}

async function serve(metrics: Metrics, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?', 1)[0];
  if (path !== METRICS_PATH) return answer(response, 404, 'not found: the metrics are at /metrics\n');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return answer(response, 405, 'method not allowed\n');
  }
  try {
    const text = await metrics.exposition();
    response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
    response.end(request.method === 'HEAD' ? undefined : text);
  } catch {
    answer(response, 500, 'metrics could not be collected\n');
  }
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}
