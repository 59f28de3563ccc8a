import { DynamicModule, ExecutionContext, Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { UssdConfig } from '../config/ussd.config';
import { REDIS_CLIENT } from '../redis/redis.module';
import { AddressList } from './address-list';
import { IP_THROTTLER, PHONE_THROTTLER, RateLimitGuard } from './rate-limit.guard';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { RedisRateLimitStorage } from './rate-limit.storage';

interface RequestView {
  ip?: string;
  method?: string;
  url?: string;
  body?: unknown;
}

const requestOf = (context: ExecutionContext): RequestView => context.switchToHttp().getRequest<RequestView>();

const isSessionRequest = (request: RequestView): boolean =>
  request.method === 'POST' && (request.url ?? '').split('?')[0] === '/api/ussd';

function phoneOf(request: RequestView): string {
  const body = request.body as { phoneNumber?: unknown } | undefined;
  return typeof body?.phoneNumber === 'string' ? body.phoneNumber.slice(0, 32) : 'unknown';
}

/** Rate-limit counters must not turn a Redis outage into a 500 on /health: the limiter fails open, loudly. */
const STORAGE_TIMEOUT_MS = 1000;

class FailOpenStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');

  constructor(private readonly inner: ThrottlerStorage) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string) {
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

@Module({})
export class RateLimitModule {
  static forRoot(config: UssdConfig): DynamicModule {
    const exempt = new AddressList(config.RATE_LIMIT_EXEMPT_CIDRS);
    const ttl = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
    return {
      module: RateLimitModule,
      imports: [
        ThrottlerModule.forRootAsync({
          inject: [REDIS_CLIENT],
          useFactory: (redis: Redis | null) => ({
            storage: new FailOpenStorage(
              redis ? new RedisRateLimitStorage(redis, config.REDIS_KEY_PREFIX) : new MemoryRateLimitStorage(),
            ),
            generateKey: (_context: ExecutionContext, tracker: string, name: string) => `${name}:${tracker}`,
            throttlers: [
              {
                name: IP_THROTTLER,
                ttl,
                limit: config.RATE_LIMIT_PER_IP,
                skipIf: (context: ExecutionContext) => exempt.has(requestOf(context).ip),
                getTracker: (request: RequestView) => request.ip ?? 'unknown',
              },
              {
                name: PHONE_THROTTLER,
                ttl,
                limit: config.RATE_LIMIT_PER_PHONE,
                skipIf: (context: ExecutionContext) => {
                  const request = requestOf(context);
                  return !(isSessionRequest(request) && exempt.has(request.ip));
                },
                getTracker: (request: RequestView) => phoneOf(request),
              },
            ],
          }),
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}
