import { createHash } from 'node:crypto';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';

/** True when an If-None-Match header names this entity tag (weak comparison, as RFC 9110 §13.1.2 requires). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return value.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}

export function etagOf(body: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;
}

/**
 * ETag and Cache-Control on every 200 of the API, 304 on a matching If-None-Match. The tag hashes the body, so it
 * changes exactly when the answer changes (a registry polling for news pays one round trip and no body).
 */
@Injectable()
export class HttpCacheInterceptor implements NestInterceptor {
  constructor(private readonly maxAgeSeconds: number) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (request.method !== 'GET' && request.method !== 'HEAD') return next.handle();
    return next.handle().pipe(
      map((body: unknown) => {
        if (reply.statusCode !== 200) return body;
        const etag = etagOf(body);
        void reply.header('etag', etag);
        // Answers depend on who asks only through authentication, but shared caches must still not keep them.
        void reply.header('cache-control', `private, max-age=${this.maxAgeSeconds}`);
        if (etagMatches(request.headers['if-none-match'], etag)) {
          void reply.status(304);
          return undefined;
        }
        return body;
      }),
    );
  }
}
