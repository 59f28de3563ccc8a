import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HopCaller } from './ussd-session.service';

/** Who sent the request (for its rate limit) and where the limit's headers go. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): HopCaller => {
  const http = context.switchToHttp();
  const reply = http.getResponse<FastifyReply>();
  return { ip: http.getRequest<FastifyRequest>().ip, setHeaders: (headers) => void reply.headers(headers) };
});
