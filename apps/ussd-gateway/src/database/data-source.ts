import { DataSourceOptions } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import { PhoneEntity } from '../accounts/phone.entity';
import { CreateAccounts1763780000000 } from './migrations/1763780000000-create-accounts';

export const ENTITIES = [PhoneEntity, AccountEntity];
export const MIGRATIONS = [CreateAccounts1763780000000];
/** Our own table, so this service's migrations never mix with another service's in a shared database. */
export const MIGRATIONS_TABLE = 'ussd_migrations';

/** Every query must give up well inside the aggregator's budget (a stuck database is "unavailable", not a hang). */
export const QUERY_TIMEOUT_MS = 3000;

export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    // Ids default to gen_random_uuid() (core since PostgreSQL 13): no extension to create, which managed databases
    // and the embedded one refuse anyway.
    installExtensions: false,
    extra: { max: poolSize, connectionTimeoutMillis: QUERY_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS },
  };
}
