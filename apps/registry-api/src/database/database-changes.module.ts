import { Global, Logger, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { connectionLimits, RegistryConfig } from '../config/registry.config';
import {
  API_CLIENT_CHANNEL,
  ChangeListener,
  LISTENER_APPLICATION_NAME,
  RECORD_CHANNEL,
  ROLLUP_CHANNEL,
} from './change-listener';
import { connectionOptions } from './data-source';

/** The one LISTEN connection of the process, shared by the API-client and aggregate caches. */
@Global()
@Module({
  providers: [
    {
      provide: ChangeListener,
      inject: [RegistryConfig, getDataSourceToken()],
      useFactory: (config: RegistryConfig, dataSource: DataSource) =>
        new ChangeListener({
          channels: [API_CLIENT_CHANNEL, ROLLUP_CHANNEL, RECORD_CHANNEL],
          connect: () =>
            new Client({
              // Never through a transaction-mode pooler: LISTEN belongs to a session (see DATABASE_LISTEN_URL).
              connectionString: config.DATABASE_LISTEN_URL ?? config.DATABASE_URL,
              application_name: LISTENER_APPLICATION_NAME,
              // Every statement on it (LISTEN, probes, heartbeats) ends in time, even on a connection gone silent.
              ...connectionOptions(connectionLimits(config)),
            }),
          notifyFromPool: async (channel, payload) => {
            await dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]);
          },
          logger: new Logger('ChangeListener'),
          queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
        }),
    },
  ],
  exports: [ChangeListener],
})
export class DatabaseChangesModule implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(private readonly listener: ChangeListener) {}

  onApplicationBootstrap(): void {
    this.listener.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.listener.stop();
  }
}
