import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '@dmrv/errors';
import { UssdConfig } from '../config/ussd.config';
import { AddressList } from '../rate-limit/address-list';

export const EVENTS_TOKEN_HEADER = 'x-events-token';
export const EVENTS_TOKEN_PARAMETER = 'token';
export const EVENTS_FORBIDDEN_MESSAGE = 'Session events are accepted from the aggregator only';

/** Where `npm start` and a developer's own scripts post from when nothing is configured. */
const LOOPBACK = ['127.0.0.0/8', '::1'];

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Who may post a session-end notification: it closes a session and is kept as that session's record, so it must
 * come from the aggregator. Africa's Talking does not sign its callbacks and sends them to the URL it is given, so
 * the two things such an aggregator supports are checked: its addresses (EVENTS_ALLOWED_CIDRS, against the client
 * address as the trust-proxy settings resolve it) and a secret carried in the callback URL (EVENTS_TOKEN, as
 * `?token=` or the `x-events-token` header, compared in constant time). Either admits. With neither configured,
 * loopback only outside production (the zero-config local stack); production does not start so (UssdConfig). With
 * EVENTS_ENABLED=false the endpoint answers like an unknown route.
 */
@Injectable()
export class SessionEventSenderGuard implements CanActivate {
  private readonly addresses: AddressList;
  private readonly token: Buffer | undefined;

  constructor(private readonly config: UssdConfig) {
    const configured = config.EVENTS_ALLOWED_CIDRS.length > 0 || config.EVENTS_TOKEN !== undefined;
    const fallback = configured || config.NODE_ENV === 'production' ? [] : LOOPBACK;
    this.addresses = new AddressList([...config.EVENTS_ALLOWED_CIDRS, ...fallback], 'EVENTS_ALLOWED_CIDRS');
    this.token = config.EVENTS_TOKEN === undefined ? undefined : digest(config.EVENTS_TOKEN);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!this.config.EVENTS_ENABLED)
      throw new NotFoundException(`Cannot ${request.method} ${request.url.split('?')[0]}`);
    if (this.addresses.has(request.ip) || this.presentsToken(request)) return true;
    throw new ForbiddenError(EVENTS_FORBIDDEN_MESSAGE);
  }

  private presentsToken(request: FastifyRequest): boolean {
    if (this.token === undefined) return false;
    const query = request.query as Record<string, unknown> | undefined;
    const fromQuery =
      query && Object.prototype.hasOwnProperty.call(query, EVENTS_TOKEN_PARAMETER)
        ? query[EVENTS_TOKEN_PARAMETER]
        : undefined;
    const presented = request.headers[EVENTS_TOKEN_HEADER] ?? fromQuery;
    return typeof presented === 'string' && timingSafeEqual(digest(presented), this.token);
  }
}
