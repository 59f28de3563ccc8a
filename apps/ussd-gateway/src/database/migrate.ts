import { runMigrationsLocked } from '@dmrv/migrations';
import { dataSourceOptions } from './data-source';

/**
 * Key of the advisory lock every `migrate` holds while it runs (`runMigrationsLocked`): any 64-bit number no other
 * tool takes in this database.
 */
export const MIGRATION_LOCK_KEY = 7_312_202_611_260_002n;

/** Applies the pending migrations, one runner at a time across processes; returns the names applied. */
export function runMigrations(url: string): Promise<string[]> {
  return runMigrationsLocked(dataSourceOptions(url, 1), MIGRATION_LOCK_KEY);
}
