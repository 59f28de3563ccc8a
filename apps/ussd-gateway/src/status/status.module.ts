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
        postgresProbe((sql) => dataSource.query(sql), 'database'),
        ...(redis ? [redisProbe(redis, 'redis')] : []),
      ],
    }),
  ],
  controllers: [StatusController],
})
export class StatusModule {}
