import type { FastifyInstance } from 'fastify';
import { etagOf } from './rendered-json';

/** True when an If-None-Match header names this entity tag (weak comparison, as RFC 9110 §13.1.2 requires). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return value.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}

/**
 * ETag and Cache-Control on every 200 JSON answer of a GET/HEAD, 304 on a matching If-None-Match. A Fastify hook
 * rather than a Nest interceptor: Nest wraps every request that meets any interceptor in an `AsyncResource.bind`
 * (a measurable share of a trivial request's CPU), while this runs once on the already serialised text.
 * Bodies that are not JSON text (Swagger UI's pages and static files, which carry their own validators) pass untouched.
 */
export function registerHttpCaching(fastify: FastifyInstance, maxAgeSeconds: number): void {
  const cacheControl = `private, max-age=${maxAgeSeconds}`;
  fastify.addHook('onSend', (request, reply, payload, done) => {
    // An answer that states its own caching policy (the probes' no-store) keeps it, and gets no validator.
    if (
      reply.hasHeader('cache-control') ||
      reply.statusCode !== 200 ||
      (request.method !== 'GET' && request.method !== 'HEAD') ||
      typeof payload !== 'string'
    ) {
      done(null, payload);
      return;
    }
    const contentType = reply.getHeader('content-type');
    if (typeof contentType !== 'string' || !contentType.startsWith('application/json')) {
      done(null, payload);
      return;
    }
    // An answer served from the aggregate cache arrives with the tag computed when it was rendered.
    const preset = reply.getHeader('etag');
    const etag = typeof preset === 'string' ? preset : etagOf(payload);
    void reply.header('etag', etag).header('cache-control', cacheControl);
    if (!etagMatches(request.headers['if-none-match'], etag)) {
      done(null, payload);
      return;
    }
    void reply.code(304).removeHeader('content-type');
    // No body and no Content-Length on a 304 to a GET (null); Fastify's HEAD handler wants a string to measure
    // and answers Content-Length: 0, as it did when the 304 was produced before serialisation.
    done(null, request.method === 'HEAD' ? '' : null);
  });
}
