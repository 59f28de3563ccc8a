import { runMigrationsLocked } from '@dmrv/migrations';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { ConnectionLimits } from '../config/registry.config';
import { ApiClientEntity } from './api-client.entity';
import { ClosableClient } from './closable-client';
import { RegistrySchema1732240000000 } from './migrations/1732240000000-registry-schema';
import { TouchUpdatedAt1732240100000 } from './migrations/1732240100000-touch-updated-at';
import { ChangeNotifications1732240200000 } from './migrations/1732240200000-change-notifications';
import { ReadingNaturalKey1732240300000 } from './migrations/1732240300000-reading-natural-key';
import { RecordChangeNotifications1732240400000 } from './migrations/1732240400000-record-change-notifications';

export const MIGRATIONS_TABLE = 'registry_migrations';
// The registry's tables are read and written in plain SQL (repository, loader, seeder); only the CLI's client
// commands go through an entity.
export const ENTITIES = [ApiClientEntity];
// Listed explicitly rather than globbed: the same list works from ts-jest sources and from dist/.
export const MIGRATIONS = [
  RegistrySchema1732240000000,
  TouchUpdatedAt1732240100000,
  ChangeNotifications1732240200000,
  ReadingNaturalKey1732240300000,
  RecordChangeNotifications1732240400000,
];

/** How much longer than the server's statement_timeout the client waits before it declares the connection silent. */
export const SILENT_CONNECTION_GRACE_MS = 1000;

/**
 * node-postgres options that bound every wait on a connection, for the pool and the change listener alike. The
 * server cancels a statement at `statement_timeout`; the client gives up `SILENT_CONNECTION_GRACE_MS` later
 * (`query_timeout`), which only happens when the connection stopped answering (a peer gone without a reset), and
 * the pool then drops that connection. TCP keepalive lets the OS notice such a peer on an idle connection.
 */
export function connectionOptions(limits: ConnectionLimits): Record<string, unknown> {
  return {
    connectionTimeoutMillis: limits.connectTimeoutMs,
    statement_timeout: limits.queryTimeoutMs,
    query_timeout: limits.queryTimeoutMs + SILENT_CONNECTION_GRACE_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveIdleMs,
  };
}

/** Without `limits` (the CLI: migrations, seeding, refreshes) statements may run as long as they need. */
export function dataSourceOptions(url: string, poolSize = 10, limits?: ConnectionLimits): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5000,
      ...(limits ? { ...connectionOptions(limits), Client: ClosableClient } : {}),
    },
  };
}

export function createDataSource(url: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(url, poolSize));
}

/**
 * Key of the advisory lock every `migrate` holds while it runs (`runMigrationsLocked`): any 64-bit number no other
 * tool takes in this database.
 */
export const MIGRATION_LOCK_KEY = 7_312_202_611_260_001n;

/** Applies the pending migrations, one runner at a time across processes; returns the names applied. */
export function runMigrations(url: string): Promise<string[]> {
  return runMigrationsLocked(dataSourceOptions(url, 1), MIGRATION_LOCK_KEY);
}
