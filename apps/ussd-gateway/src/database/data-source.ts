import { DataSourceOptions } from 'typeorm';
import type { DependencyTimeouts } from '../config/dependency-timeouts';
import { DeadConnectionDroppingClient } from './dead-connection';
import { CreateAccounts1763780000000 } from './migrations/1763780000000-create-accounts';
import { IdempotentHopsAndPinGuards1764800000000 } from './migrations/1764800000000-idempotent-hops-and-pin-guards';
import { SessionEvents1765100000000 } from './migrations/1765100000000-session-events';
import { Languages1765900000000 } from './migrations/1765900000000-languages';
import { OrdersAndTickets1765900000001 } from './migrations/1765900000001-orders-and-tickets';
import { SessionEventsPerPhone1766700000000 } from './migrations/1766700000000-session-events-per-phone';
import { PinVersion1766700000001 } from './migrations/1766700000001-pin-version';

export const MIGRATIONS = [
  CreateAccounts1763780000000,
  IdempotentHopsAndPinGuards1764800000000,
  SessionEvents1765100000000,
  Languages1765900000000,
  OrdersAndTickets1765900000001,
  SessionEventsPerPhone1766700000000,
  PinVersion1766700000001,
];
/** Our own table, so this service's migrations never mix with another service's in a shared database. */
export const MIGRATIONS_TABLE = 'ussd_migrations';

/** Time-outs of the command-line tools (migrations, key rotation): generous, and no statement time-out. */
const TOOL_CONNECT_TIMEOUT_MS = 10_000;

/**
 * `timeouts` are those of the running service (see dependency-timeouts.ts): every statement is cancelled by the
 * server past its share of the hop budget, a connection that stops answering is dropped (TCP keepalive for idle
 * ones, DeadConnectionDroppingClient for those a query waits on). Without them (the CLI), statements may run long.
 */
export function dataSourceOptions(
  url: string,
  poolSize = 10,
  timeouts?: Pick<DependencyTimeouts, 'postgresStatementMs' | 'postgresQueryMs' | 'postgresConnectMs'>,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    // Plain-SQL repositories: TypeORM runs the migrations and holds the pool, and maps no entity.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    // Ids default to gen_random_uuid() (core since PostgreSQL 13): no extension to create, which managed databases
    // and the embedded one refuse anyway.
    installExtensions: false,
    extra: {
      max: poolSize,
      Client: DeadConnectionDroppingClient,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
      connectionTimeoutMillis: timeouts?.postgresConnectMs ?? TOOL_CONNECT_TIMEOUT_MS,
      ...(timeouts
        ? { statement_timeout: timeouts.postgresStatementMs, query_timeout: timeouts.postgresQueryMs }
        : {}),
    },
  };
}
