import { once } from 'node:events';
import { Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import Redis from 'ioredis';
import { withDeadline } from '@dmrv/deadline';
import { UssdConfig } from '../config/ussd.config';
import { dependencyTimeouts } from '../config/dependency-timeouts';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * The client of every Redis command this service sends. A connection is only as good as its last answer:
 * - `commandTimeout`: a command gives up well inside the hop budget;
 * - `socketTimeout`: a connection that owes an answer and stays silent that long is destroyed and reopened. A peer
 *   that vanished without a reset (a NAT or load balancer that dropped the flow) otherwise keeps every command
 *   failing for as long as the kernel keeps the socket, which is minutes;
 * - `keepAlive`: the same for an idle connection, found by the kernel's probes;
 * - no offline queue and no resending after a reconnect: a command of a hop that already answered "unavailable"
 *   must never run later (a replayed lock-and-read took the session lock of a hop nobody waited for any more, and
 *   the subscriber's next hop found its session busy). While disconnected, a command fails at once.
 */
export function createRedisClient(url: string, commandTimeoutMs: number): Redis {
  const client = new Redis(url, {
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    keepAlive: 5000,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // Connection failures surface where they matter (the failing command, the readiness probe); without a listener
  // ioredis would print every reconnect attempt to stderr.
  client.on('error', () => undefined);
  return client;
}

/**
 * Without an offline queue, commands sent before the first connection is ready would fail: start-up waits for it,
 * at most one connect time-out (a Redis that is down at start-up makes hops "unavailable", it does not stop the
 * service).
 */
async function firstConnection(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await withDeadline((signal) => once(client, 'ready', { signal }), { ms: timeoutMs, what: 'the first Redis connection' }).catch(() => undefined);
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
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [UssdConfig],
      useFactory: async (config: UssdConfig) => {
        if (!config.REDIS_URL) return null;
        const { redisCommandMs } = dependencyTimeouts(config.HOP_TIMEOUT_MS);
        const client = createRedisClient(config.REDIS_URL, redisCommandMs);
        await firstConnection(client, redisCommandMs);
        return client;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
