import { once } from 'node:events';
import { Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { withDeadline } from '@dmrv/deadline';
import { UssdConfig } from '../config/ussd.config';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { createRedisClient, RedisClient, redisTopologyOf } from './redis-client';

export { createRedisClient } from './redis-client';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * Without an offline queue, commands sent before the first connection is ready would fail: start-up waits for it,
 * at most one connect time-out (a Redis that is down at start-up makes hops "unavailable", it does not stop the
 * service).
 */
async function firstConnection(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await withDeadline((signal) => once(client, 'ready', { signal }), {
    ms: timeoutMs,
    what: 'the first Redis connection',
  }).catch(() => undefined);
}

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly client: RedisClient | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    await this.client.quit().catch(() => this.client?.disconnect());
  }
}

/**
 * Provides the shared client (one node, a cluster or a master found through Sentinel), or `null` when no Redis is
 * configured (in-memory stores are used instead).
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [UssdConfig],
      useFactory: async (config: UssdConfig) => {
        const topology = redisTopologyOf(config);
        if (!topology) return null;
        const { redisCommandMs } = dependencyTimeouts(config.HOP_TIMEOUT_MS);
        const client = createRedisClient(topology, redisCommandMs);
        await firstConnection(client, redisCommandMs);
        return client;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
