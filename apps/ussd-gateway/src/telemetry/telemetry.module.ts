import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { checkWithin } from '@dmrv/health';
import { Metrics } from '@dmrv/metrics';
import { Tracing } from '@dmrv/tracing';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { observeRedisScripts } from '../redis/redis-script';
import { dependencyProbes } from '../status/dependency-probes';
import { UssdMetrics } from './ussd-metrics';

/**
 * The gateway's metrics, the pool's gauges, whether PostgreSQL and Redis answer, the Redis script timings and, with
 * tracing on, spans for the Redis scripts (the pool's queries are traced by the pg instrumentation main.ts registers).
 * Global: the session service and the rate-limit guard count into it.
 */
@Global()
@Module({
  providers: [
    {
      provide: UssdMetrics,
      inject: [Metrics, Tracing, getDataSourceToken(), REDIS_CLIENT],
      useFactory: (metrics: Metrics, tracing: Tracing, dataSource: DataSource, redis: RedisClient | null) => {
        const ussd = new UssdMetrics(metrics);
        const pool = (dataSource.driver as PostgresDriver).master as Pool;
        metrics.observePool('primary', pool);
        // Asked at each scrape, not read from the last readiness check: a database outage keeps the pods ready (see
        // dependencyProbes) and answering every account hop "unavailable", and this is where it shows.
        const probes = dependencyProbes(dataSource, redis);
        metrics.gauge({
          name: 'dmrv_ussd_dependency_up',
          help: 'Whether each dependency answered this scrape within its probe deadline (1) or not (0): database, redis',
          labelNames: ['dependency'],
          collect: async (gauge) => {
            const answered = await Promise.all(
              probes.map((probe) =>
                checkWithin(probe).then(
                  () => 1,
                  () => 0,
                ),
              ),
            );
            probes.forEach((probe, index) => gauge.set({ dependency: probe.name }, answered[index]!));
          },
        });
        const tracer = tracing.tracer;
        if (redis) {
          observeRedisScripts(redis, {
            finished: (script, seconds, failed) => ussd.scriptCalled(script, seconds, failed),
            startSpan: tracer
              ? (script) =>
                  tracer.startChild(`EVALSHA ${script}`, 'client', {
                    'db.system.name': 'redis',
                    'db.operation.name': 'EVALSHA',
                    'db.stored_procedure.name': script,
                  })
              : undefined,
          });
        }
        return ussd;
      },
    },
  ],
  exports: [UssdMetrics],
})
export class TelemetryModule {}
