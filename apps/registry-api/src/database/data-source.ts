import { DataSource, DataSourceOptions } from 'typeorm';
import { ApiClientEntity } from '../auth/api-client.entity';
import { REGISTRY_ENTITIES } from '../registry/entities/registry.entities';
import { RegistrySchema1732240000000 } from './migrations/1732240000000-registry-schema';
import { TouchUpdatedAt1732240100000 } from './migrations/1732240100000-touch-updated-at';
import { ChangeNotifications1732240200000 } from './migrations/1732240200000-change-notifications';
import { ReadingNaturalKey1732240300000 } from './migrations/1732240300000-reading-natural-key';

export const MIGRATIONS_TABLE = 'registry_migrations';
export const ENTITIES = [...REGISTRY_ENTITIES, ApiClientEntity];
// Listed explicitly rather than globbed: the same list works from ts-jest sources and from dist/.
export const MIGRATIONS = [RegistrySchema1732240000000, TouchUpdatedAt1732240100000, ChangeNotifications1732240200000, ReadingNaturalKey1732240300000];

export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    extra: { max: poolSize, connectionTimeoutMillis: 5000 },
  };
}

export function createDataSource(url: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(url, poolSize));
}

/** Applies pending migrations, each in its own transaction; returns the names applied. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = await createDataSource(url, 1).initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
