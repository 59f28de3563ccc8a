import { ExecutionContext, Global, Inject, Injectable, Logger, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { withDeadline } from '@dmrv/deadline';
import { Metrics } from '@dmrv/metrics';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { UssdConfig } from '../config/ussd.config';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { AddressList } from './address-list';
import { RateLimitMetrics } from './rate-limit.metrics';
import { IP_LIMIT, RateLimitHit, RateLimitPolicy, rateLimitKey } from './rate-limit.policy';
import { RateLimitCount, RedisRateLimitStorage } from './rate-limit.storage';

interface RequestView {
  ip?: string;
}

/** Rate-limit counters must not turn a Redis outage into a 500 on /health: the limiter fails open, loudly. */
const STORAGE_TIMEOUT_MS = 1000;

/**
 * The counters every limit of this instance uses (Redis when configured, else process memory), for
 * @nestjs/throttler and for the session requests counted on their own.
 */
@Injectable()
export class RateLimitCounter implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  readonly storage: ThrottlerStorage;

  constructor(@Inject(REDIS_CLIENT) redis: RedisClient | null, config: UssdConfig) {
    this.storage = redis
      ? new RedisRateLimitStorage(redis, config.REDIS_KEY_PREFIX)
      : new MemoryRateLimitStorage();
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    name: string,
  ): Promise<RateLimitCount> {
    try {
      return await withDeadline(() => this.storage.increment(key, ttl, limit, blockDuration, name), {
        ms: STORAGE_TIMEOUT_MS,
        what: 'rate-limit store',
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'rate-limit store unavailable: request not counted');
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  count(hit: RateLimitHit): Promise<RateLimitCount> {
    return this.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs, hit.name);
  }
}

/** @nestjs/throttler's guard, counting its refusals (the session endpoint counts its own). */
@Injectable()
class CountingThrottlerGuard extends ThrottlerGuard {
  @Inject(RateLimitMetrics) private readonly metrics!: RateLimitMetrics;

  protected override throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    this.metrics.rateLimited(IP_LIMIT);
    return super.throwThrottlingException(context, detail);
  }
}

/** Says at start-up what the policy finds risky in this configuration (see RateLimitPolicy.startupWarning). */
@Injectable()
class RateLimitStartupNotice implements OnModuleInit {
  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly config: UssdConfig,
  ) {}

  onModuleInit(): void {
    const warning = this.policy.startupWarning(this.config.NODE_ENV);
    if (warning !== undefined) new Logger('RateLimit').warn(warning);
  }
}

const policyProvider = {
  provide: RateLimitPolicy,
  inject: [UssdConfig],
  useFactory: (config: UssdConfig) =>
    new RateLimitPolicy({
      perIp: config.RATE_LIMIT_PER_IP,
      perPhone: config.RATE_LIMIT_PER_PHONE,
      perSession: config.RATE_LIMIT_PER_SESSION,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      exempt: new AddressList(config.RATE_LIMIT_EXEMPT_CIDRS),
    }),
};

/**
 * Every endpoint but the session one goes through @nestjs/throttler (per client IP, exempt addresses skipped). A
 * session request is counted by the session store in the round trip that locks the session (see README, "Rate
 * limiting"): same policy, same counters, one Redis round trip fewer per hop. Global: throttler's own module reads
 * the counter from here.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [RateLimitCounter, RateLimitPolicy],
      useFactory: (counter: RateLimitCounter, policy: RateLimitPolicy) => ({
        storage: counter,
        generateKey: (_context: ExecutionContext, tracker: string, name: string) =>
          rateLimitKey(name, tracker),
        throttlers: [
          {
            name: IP_LIMIT,
            ttl: policy.windowMs,
            limit: policy.perIp,
            skipIf: (context: ExecutionContext) =>
              policy.isExempt(context.switchToHttp().getRequest<RequestView>().ip),
            getTracker: (request: RequestView) => request.ip ?? 'unknown',
          },
        ],
      }),
    }),
  ],
  providers: [
    RateLimitCounter,
    policyProvider,
    {
      provide: RateLimitMetrics,
      inject: [Metrics],
      useFactory: (metrics: Metrics) => new RateLimitMetrics(metrics),
    },
    RateLimitStartupNotice,
    { provide: APP_GUARD, useClass: CountingThrottlerGuard },
  ],
  exports: [RateLimitCounter, RateLimitPolicy, RateLimitMetrics],
})
export class RateLimitModule {}
