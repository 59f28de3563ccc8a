import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The sender of a hop, as far as its rate limit is concerned. */
export interface HopCaller {
  /** The client address (X-Forwarded-For only from trusted proxies). */
  ip: string | undefined;
  setHeaders(headers: Record<string, string>): void;
}

/** Who sent the request (for its rate limit) and where the limit's headers go. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): HopCaller => {
  const http = context.switchToHttp();
  const reply = http.getResponse<FastifyReply>();
  return { ip: http.getRequest<FastifyRequest>().ip, setHeaders: (headers) => void reply.headers(headers) };
});
