export { runMigrationsLocked } from './run-migrations';
