import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import Redis from 'ioredis';
import { UssdConfig } from '../config/ussd.config';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** How long one Redis command may take before the hop gives up: well inside the aggregator's budget. */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

export function createRedisClient(url: string): Redis {
  const client = new Redis(url, {
    // Commands issued while reconnecting wait in the offline queue but fail at the command time-out, so a stopped
    // Redis costs a hop two seconds, never the aggregator's whole fifteen.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // Connection failures surface where they matter (the failing command, the readiness probe); without a listener
  // ioredis would print every reconnect attempt to stderr.
  client.on('error', () => undefined);
  return client;
}

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly client: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    await this.client.quit().catch(() => this.client?.disconnect());
  }
}

/** Provides the shared client, or `null` when REDIS_URL is unset (in-memory stores are used instead). */
@Global()
@Module({})
export class RedisModule {
  static forRoot(config: UssdConfig): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS_CLIENT, useFactory: () => (config.REDIS_URL ? createRedisClient(config.REDIS_URL) : null) }, RedisLifecycle],
      exports: [REDIS_CLIENT],
    };
  }
}
