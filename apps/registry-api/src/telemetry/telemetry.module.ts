import { Global, Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { postgresAttributes, tracePgPool, Tracing } from '@dmrv/tracing';
import { RegistryConfig } from '../config/registry.config';
import { ChangeListener } from '../database/change-listener';
import { SqlReader } from '../database/sql-reader';
import { RegistryMetrics } from './registry-metrics';

/**
 * The registry's metrics, and each pool's gauges (`pool="primary"`, `"replica-1"`, …) and (with tracing on) its query
 * spans. Global: the guard, the aggregate answers and the API-client cache all count into it.
 */
@Global()
@Module({
  providers: [
    {
      provide: RegistryMetrics,
      inject: [RegistryConfig, Metrics, Tracing, ChangeListener, SqlReader],
      useFactory: (config: RegistryConfig, metrics: Metrics, tracing: Tracing, listener: ChangeListener, reader: SqlReader) => {
        const urls = [config.DATABASE_URL, ...config.DATABASE_REPLICA_URLS];
        [reader.primary, ...reader.replicas].forEach(({ name, pool }, index) => {
          metrics.observePool(name, pool);
          if (tracing.tracer) tracePgPool(pool, tracing.tracer, postgresAttributes(urls[index]!));
        });
        metrics.gauge({
          name: 'dmrv_registry_database_up',
          help: 'Whether each database answered its last read (1) or not (0): the primary, and each read replica',
          labelNames: ['database'],
          collect: (gauge) => {
            for (const { name, up } of reader.databaseStates()) gauge.set({ database: name }, up ? 1 : 0);
          },
        });
        return new RegistryMetrics(metrics, () => listener.state);
      },
    },
  ],
  exports: [RegistryMetrics],
})
export class TelemetryModule {}
