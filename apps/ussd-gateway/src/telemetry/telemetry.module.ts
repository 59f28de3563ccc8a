import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Metrics } from '@dmrv/metrics';
import { Tracing } from '@dmrv/tracing';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { DependencyGauge } from './dependency-gauge';
import { observeRedisScriptCalls } from './redis-script-metrics';

/**
 * The pool's gauges, whether PostgreSQL and Redis answer (the probes come from the status module), the Redis script
 * timings and, with tracing on, spans for the Redis scripts. The families a room counts into are that room's: the
 * hop's in ussd/ (HopMetrics), the refusals in rate-limit/ (RateLimitMetrics). Global: the status module registers
 * its probes here.
 */
@Global()
@Module({
  providers: [
    {
      provide: DependencyGauge,
      inject: [Metrics, Tracing, getDataSourceToken(), REDIS_CLIENT],
      useFactory: (metrics: Metrics, tracing: Tracing, dataSource: DataSource, redis: RedisClient | null) => {
        metrics.observePool('primary', (dataSource.driver as PostgresDriver).master as Pool);
        if (redis) observeRedisScriptCalls(metrics, tracing, redis);
        return new DependencyGauge(metrics);
      },
    },
  ],
  exports: [DependencyGauge],
})
export class TelemetryModule {}
