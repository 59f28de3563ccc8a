import { HttpAdapterHost } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppExceptionFilter, ErrorRenderer } from '@dmrv/errors';
import { httpExecutionContext } from '@dmrv/http-kit';
import type { RequestCaller } from '../contract/request-caller';
import { UssdSessionService } from './ussd-session.service';

export const USSD_PATH = '/api/ussd';
const TEXT_PLAIN = 'text/plain; charset=utf-8';

/**
 * `POST /api/ussd`, the hop, as a Fastify route of its own rather than a Nest controller method: the busiest route
 * of the service skips Nest's per-request pipeline (router, global guard, parameter decorators, response handling),
 * which it does not use — it is not throttled by the guard (the service counts its hits in the Redis round trip that
 * locks the session), validates its body itself (ussd-request.ts) and answers text. What every route gets stays:
 * Fastify's hooks (request id, access line, HTTP metrics, trace span), the body parsers, and the app's one error
 * filter's renderer (`renderErrors`, the app's, given by bootstrap), so whatever the hop throws is rendered exactly as
 * it is for the other routes.
 */
export function installUssdRoute(app: NestFastifyApplication, renderErrors: ErrorRenderer): void {
  const sessions = app.get(UssdSessionService);
  const errors = new AppExceptionFilter(app.get(HttpAdapterHost), renderErrors);
  app
    .getHttpAdapter()
    .getInstance()
    .post(USSD_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
      const caller: RequestCaller = { ip: request.ip, setHeaders: (headers) => void reply.headers(headers) };
      let answer: string;
      try {
        answer = await sessions.handle(request.body, caller);
      } catch (error) {
        errors.catch(error, httpExecutionContext(request, reply));
        return reply;
      }
      return reply.code(200).header('content-type', TEXT_PLAIN).send(answer);
    });
}
