import { Global, Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { ChangeListener } from '../database/change-listener';
import { SqlReader } from '../database/sql-reader';
import { RegistryMetrics } from './registry-metrics';

/**
 * The registry's metrics, and each pool's gauges (`pool="primary"`, `"replica-1"`, …). Global: the guard, the
 * aggregate answers and the API-client cache all count into it.
 */
@Global()
@Module({
  providers: [
    {
      provide: RegistryMetrics,
      inject: [Metrics, ChangeListener, SqlReader],
      useFactory: (metrics: Metrics, listener: ChangeListener, reader: SqlReader) => {
        for (const { name, pool } of [reader.primary, ...reader.replicas]) metrics.observePool(name, pool);
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
