import { Global, Logger, Module, OnModuleDestroy } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DataSource } from 'typeorm';
import { connectionLimits, RegistryConfig } from '../config/registry.config';
import { ClosableClient } from './closable-client';
import { connectionOptions } from './data-source';
import { PoolReader } from './pool-reader';
import { ReplicaRouter } from './replica-router';
import { SqlReader } from './sql-reader';

/** How replicas are named in logs, metrics and readiness: by position, never by URL (it may hold a password). */
export function replicaName(index: number): string {
  return `replica-${index + 1}`;
}

/**
 * The one reader of the service, shared by authentication and the registry: the pool TypeORM opened on the primary
 * (DATABASE_URL) and one pool per read replica (DATABASE_REPLICA_URLS), each of DATABASE_POOL_SIZE connections and
 * the same limits.
 */
@Global()
@Module({
  providers: [
    {
      provide: SqlReader,
      inject: [RegistryConfig, getDataSourceToken()],
      useFactory: (config: RegistryConfig, dataSource: DataSource) => {
        const primary = new PoolReader((dataSource.driver as PostgresDriver).master as Pool);
        const replicas = config.DATABASE_REPLICA_URLS.map((url, index) => {
          const pool = new Pool({
            connectionString: url,
            max: config.DATABASE_POOL_SIZE,
            ...connectionOptions(connectionLimits(config)),
            Client: ClosableClient,
          });
          // An idle connection that breaks (the replica restarts) is dropped by the pool, which reports it here;
          // unheard, the event would end the process. The router learns of an outage from the next query.
          pool.on('error', () => undefined);
          return new PoolReader(pool, replicaName(index));
        });
        const router = new ReplicaRouter({ primary, replicas, logger: new Logger('ReplicaRouter') });
        return new SqlReader(primary, router, replicas);
      },
    },
  ],
  exports: [SqlReader],
})
export class DatabaseModule implements OnModuleDestroy {
  constructor(private readonly reader: SqlReader) {}

  onModuleDestroy(): Promise<void> {
    return this.reader.close();
  }
}
