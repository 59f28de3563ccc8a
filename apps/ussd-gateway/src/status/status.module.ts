import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DependencyProbe, HealthModule, postgresProbe, redisProbe } from '@dmrv/health';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { StatusController } from './status.controller';

/** The spec's `/` and `/health` records, backed by the shared readiness probes (Redis only when configured). */
@Module({
  imports: [
    HealthModule.forRoot({
      service: 'ussd-gateway',
      controller: false,
      inject: [DataSource, REDIS_CLIENT],
      probes: (dataSource: DataSource, redis: RedisClient | null): DependencyProbe[] => [
        // Reported, not deciding readiness: without PostgreSQL every instance still serves the screens that need only
        // Redis and answers account hops with the unavailable text; taking them all out of the Service would turn a
        // database outage into connection errors at the aggregator. `/health` still answers 503 (the spec's record).
        { ...postgresProbe((sql) => dataSource.query(sql), 'database'), required: false },
        ...(redis ? [redisProbe(redis, 'redis')] : []),
      ],
    }),
  ],
  controllers: [StatusController],
})
export class StatusModule {}
