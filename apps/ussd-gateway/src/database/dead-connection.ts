import { Client } from 'pg';

/** node-postgres' own message when `query_timeout` passes without an answer. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * A pg client that closes its connection when a query got no answer within `query_timeout`. node-postgres only
 * rejects that query: the connection stays in the pool, still waiting for the lost answer, and every later query
 * on it times out too, for as long as the dead socket lives (minutes, when the peer vanished without a reset), and
 * TypeORM hands it back to the pool as healthy. Ending it (which destroys the socket of a client with a query in
 * flight) marks it at once, so the pool drops it and the next query gets a fresh connection.
 */
export class DeadConnectionDroppingClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    const drop = (error: unknown): void => {
      if (error instanceof Error && error.message === READ_TIMEOUT) this.end().catch(() => undefined);
    };
    this.query = ((...args: unknown[]) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        const callback = last as (error: unknown, ...rest: unknown[]) => void;
        return query(...args.slice(0, -1), (error: unknown, ...rest: unknown[]) => {
          drop(error);
          callback(error, ...rest);
        });
      }
      const result = query(...args);
      if (result instanceof Promise) result.catch(drop);
      return result;
    }) as Client['query'];
  }
}
