import { DynamicModule, ExecutionContext, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { UssdConfig } from '../config/ussd.config';
import { REDIS_CLIENT } from '../redis/redis.module';
import { UssdMetrics } from '../telemetry/ussd-metrics';
import { AddressList } from './address-list';
import { IP_LIMIT, RateLimitPolicy, rateLimitKey } from './rate-limit.policy';
import { RateLimitCount, RedisRateLimitStorage } from './rate-limit.storage';

/** The counters every limit of this instance uses: Redis when configured, else process memory. */
export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

interface RequestView {
  ip?: string;
}

/** Rate-limit counters must not turn a Redis outage into a 500 on /health: the limiter fails open, loudly. */
const STORAGE_TIMEOUT_MS = 1000;

class FailOpenStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');

  constructor(private readonly inner: ThrottlerStorage) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<RateLimitCount> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.inner.increment(key, ttl, limit, blockDuration, name),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('rate-limit store timed out')), STORAGE_TIMEOUT_MS))),
      ]);
    } catch (error) {
      this.logger.warn({ err: error }, 'rate-limit store unavailable: request not counted');
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** @nestjs/throttler's guard, counting its refusals (the session endpoint counts its own). */
@Injectable()
class CountingThrottlerGuard extends ThrottlerGuard {
  @Inject(UssdMetrics) private readonly metrics!: UssdMetrics;

  protected override throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    this.metrics.rateLimited(IP_LIMIT);
    return super.throwThrottlingException(context, detail);
  }
}

/**
 * Every endpoint but the session one goes through @nestjs/throttler (per client IP, exempt addresses skipped). A
 * session request is counted by the session store in the round trip that locks the session (see README, "Rate
 * limiting"): same policy, same counters, one Redis round trip fewer per hop.
 */
@Module({})
export class RateLimitModule {
  static forRoot(config: UssdConfig): DynamicModule {
    const policy = new RateLimitPolicy({
      perIp: config.RATE_LIMIT_PER_IP,
      perPhone: config.RATE_LIMIT_PER_PHONE,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      exempt: new AddressList(config.RATE_LIMIT_EXEMPT_CIDRS),
    });
    const storage = {
      provide: RATE_LIMIT_STORAGE,
      inject: [REDIS_CLIENT],
      useFactory: (redis: Redis | null): ThrottlerStorage =>
        new FailOpenStorage(redis ? new RedisRateLimitStorage(redis, config.REDIS_KEY_PREFIX) : new MemoryRateLimitStorage()),
    };
    return {
      module: RateLimitModule,
      global: true,
      imports: [
        ThrottlerModule.forRootAsync({
          inject: [RATE_LIMIT_STORAGE],
          useFactory: (shared: ThrottlerStorage) => ({
            storage: shared,
            generateKey: (_context: ExecutionContext, tracker: string, name: string) => rateLimitKey(name, tracker),
            throttlers: [
              {
                name: IP_LIMIT,
                ttl: policy.windowMs,
                limit: policy.perIp,
                skipIf: (context: ExecutionContext) => policy.isExempt(context.switchToHttp().getRequest<RequestView>().ip),
                getTracker: (request: RequestView) => request.ip ?? 'unknown',
              },
            ],
          }),
        }),
      ],
      providers: [storage, { provide: RateLimitPolicy, useValue: policy }, { provide: APP_GUARD, useClass: CountingThrottlerGuard }],
      exports: [RATE_LIMIT_STORAGE, RateLimitPolicy],
    };
  }
}
