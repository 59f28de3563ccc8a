import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Metrics } from '@dmrv/metrics';
import { postgresAttributes, tracePgPool, Tracing } from '@dmrv/tracing';
import { RegistryConfig } from '../config/registry.config';
import { ChangeListener } from '../database/change-listener';
import { RegistryMetrics } from './registry-metrics';

/** The pool TypeORM opened, which SqlReader queries too. */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/**
 * The registry's metrics, and the pool's gauges and (with tracing on) its query spans. Global: the guard, the
 * aggregate answers and the API-client cache all count into it.
 */
@Global()
@Module({
  providers: [
    {
      provide: RegistryMetrics,
      inject: [RegistryConfig, Metrics, Tracing, ChangeListener, getDataSourceToken()],
      useFactory: (config: RegistryConfig, metrics: Metrics, tracing: Tracing, listener: ChangeListener, dataSource: DataSource) => {
        const pool = poolOf(dataSource);
        metrics.observePool('primary', pool);
        if (tracing.tracer) tracePgPool(pool, tracing.tracer, postgresAttributes(config.DATABASE_URL));
        return new RegistryMetrics(metrics, () => listener.state);
      },
    },
  ],
  exports: [RegistryMetrics],
})
export class TelemetryModule {}
