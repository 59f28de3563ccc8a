import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Who sent a request (for its rate limit) and where the limit's headers go. */
export interface RequestCaller {
  /** The client address (X-Forwarded-For only from trusted proxies). */
  ip: string | undefined;
  setHeaders(headers: Record<string, string>): void;
}

/** The RequestCaller of a controller method's request. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): RequestCaller => {
  const http = context.switchToHttp();
  const reply = http.getResponse<FastifyReply>();
  return { ip: http.getRequest<FastifyRequest>().ip, setHeaders: (headers) => void reply.headers(headers) };
});
