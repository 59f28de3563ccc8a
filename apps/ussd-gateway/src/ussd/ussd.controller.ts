import { Body, Controller, createParamDecorator, ExecutionContext, Header, HttpCode, Post } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HopCaller, UssdSessionService } from './ussd-session.service';

/** Who sent the hop (for its rate limit) and where the limit's headers go. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): HopCaller => {
  const http = context.switchToHttp();
  const reply = http.getResponse<FastifyReply>();
  return { ip: http.getRequest<FastifyRequest>().ip, setHeaders: (headers) => void reply.headers(headers) };
});

@Controller('api/ussd')
export class UssdController {
  constructor(private readonly sessions: UssdSessionService) {}

  /**
   * Not throttled by the guard: the service counts a valid hop in the Redis round trip that locks its session
   * (@nestjs/throttler would spend one of its own), an invalid request on its own, both under the same policy.
   */
  @Post()
  @HttpCode(200)
  @SkipThrottle()
  @Header('content-type', 'text/plain; charset=utf-8')
  session(@Body() body: unknown, @Caller() caller: HopCaller): Promise<string> {
    return this.sessions.handle(body, caller);
  }
}
