import { settledWithin } from '@dmrv/deadline';
import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DependencyUnavailableError } from '@dmrv/errors';
import { ClosableClient } from './closable-client';
import { isDatabaseUnavailable, isSilentConnection } from './database-errors';

/**
 * Parameterised reads straight on one pool: the one TypeORM opened on the primary, or a replica's. `DataSource.query`
 * wraps every call in a query runner (acquire, hooks, release), a visible share of each request on endpoints whose
 * SQL takes a fraction of a millisecond. Same type parsers, same connection limits.
 *
 * A database that cannot answer (unreachable, timed out, shutting down, out of connections) is a
 * `DependencyUnavailableError`, which the service answers 503; any other database error stays a 500 (a bug).
 * When one connection turns out to have gone silent, every idle one is dropped too: they were opened over the same
 * network path, and each would otherwise cost a request a full query timeout before the pool noticed. New
 * connections are opened on demand, and a new one to a host that is back answers at once.
 */
export class PoolReader {
  private readonly idle = new Set<PoolClient>();
  private readonly logger: Logger;

  constructor(
    readonly pool: Pool,
    /** `primary`, `replica-1`, …: in logs, metrics and readiness (never the URL, which may hold a password). */
    readonly name = 'primary',
  ) {
    this.logger = new Logger(`SqlReader ${name}`);
    this.pool.on('release', (error, client) => {
      if (!error) this.idle.add(client);
    });
    this.pool.on('acquire', (client) => this.idle.delete(client));
    this.pool.on('remove', (client) => this.idle.delete(client));
    this.pool.on('connect', (client) => client.once('end', () => this.idle.delete(client)));
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    try {
      const result = await this.pool.query(sql, params as unknown[]);
      return result.rows as R[];
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      if (isSilentConnection(error)) await this.dropIdleConnections();
      throw new DependencyUnavailableError('database', error);
    }
  }

  /** Resolves once the pool has let go of every connection that was idle (it does so as each one's socket closes). */
  private async dropIdleConnections(): Promise<void> {
    if (this.idle.size === 0) return;
    this.logger.warn(
      `a database connection stopped answering: dropping the ${this.idle.size} idle one(s) with it`,
    );
    // Every pool of the service is built with `ClosableClient`; a client of another kind is left to TCP keepalive.
    const closed = [...this.idle].flatMap((client: unknown) =>
      client instanceof ClosableClient ? [client.closeNow()] : [],
    );
    this.idle.clear();
    // A destroyed socket closes within a turn of the event loop; the bound only keeps a surprise from hanging a request.
    await settledWithin(Promise.all(closed), { ms: 1000, what: 'closing idle connections', unref: true });
  }
}
