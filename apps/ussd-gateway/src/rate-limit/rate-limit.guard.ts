import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { DomainError } from '@dmrv/errors';

/** Named `default` so clients get the standard `Retry-After` and `X-RateLimit-*` headers, without a suffix. */
export const IP_THROTTLER = 'default';
export const PHONE_THROTTLER = 'phone';

/** Too many session requests for one phone number (aggregator traffic): answered as an END text, not a 429. */
export class PhoneRateLimitedError extends DomainError {
  constructor() {
    super('PHONE_RATE_LIMITED', 'Too many requests for this phone number', 429);
  }
}

/**
 * `@nestjs/throttler` with two named limits: per client IP (everything, except exempt aggregator addresses) and
 * per phone number (session requests from exempt addresses). The client IP is Fastify's `request.ip`, which
 * honours X-Forwarded-For only when TRUST_PROXY_ENABLED is set: a forged header changes nothing otherwise.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    if (detail.key.startsWith(`${PHONE_THROTTLER}:`)) throw new PhoneRateLimitedError();
    throw new ThrottlerException(await this.getErrorMessage(context, detail));
  }
}
