export { MIGRATION_LOCK_TIMEOUT_MS, MigrationLockTimeoutError, runMigrationsLocked } from './run-migrations';
export type { MigrationLockOptions } from './run-migrations';
