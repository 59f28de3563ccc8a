import type { FastifyInstance } from 'fastify';

export interface CorsOptions {
  /** Exact origins, or `*` for any. Empty: no CORS headers at all. */
  origins: readonly string[];
  /** Request headers a browser may send besides the simple ones. */
  allowHeaders: readonly string[];
}

// Clients read the height a response was computed at, and quote the request id in bug reports.
const EXPOSED = 'x-cosmos-block-height, x-request-id';

/**
 * CORS for browser clients (wallets, dashboards). Preflights are answered here, before routing and before access
 * gating (a browser never sends credentials on a preflight); only GET is ever allowed.
 */
export function installCors(fastify: FastifyInstance, options: CorsOptions): void {
  if (options.origins.length === 0) return;
  const any = options.origins.includes('*');
  const allowed = new Set(options.origins);
  const allowHeaders = [...new Set(options.allowHeaders.map((header) => header.toLowerCase()))];
  fastify.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return done();
    const permitted = any || allowed.has(origin);
    if (permitted) {
      void reply.header('access-control-allow-origin', any ? '*' : origin);
      void reply.header('access-control-expose-headers', EXPOSED);
    }
    if (!any) void reply.header('vary', 'origin');
    const requestedMethod = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || typeof requestedMethod !== 'string') return done();
    if (permitted) {
      // Grpc-Metadata-* headers are open-ended, so the ones a preflight asks for are allowed by prefix.
      const requested = String(request.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map((header) => header.trim().toLowerCase())
        .filter((header) => header.startsWith('grpc-metadata-'));
      void reply.header('access-control-allow-methods', 'GET');
      void reply.header('access-control-allow-headers', [...allowHeaders, ...requested].join(', '));
      void reply.header('access-control-max-age', '600');
    }
    void reply.code(204).send();
  });
}
