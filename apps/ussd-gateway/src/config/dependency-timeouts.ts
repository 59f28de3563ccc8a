/**
 * How long each call to a dependency may take, as a share of the hop budget (HOP_TIMEOUT_MS): one knob for the
 * operator, and a dependency that stops answering always fails a call well before the hop answers "unavailable".
 * At the default budget of 5 s: Redis 2 s, a PostgreSQL statement 2.5 s on the server, 3 s seen from the client, a
 * PIN hash slot 4 s.
 */
export interface DependencyTimeouts {
  /** One Redis command; also how long a connection may owe an answer before it is dropped and reopened. */
  redisCommandMs: number;
  /** Server side (`statement_timeout`): PostgreSQL cancels the statement itself, the connection stays usable. */
  postgresStatementMs: number;
  /**
   * Client side: the answer did not come back at all (network or server gone quiet). Longer than the statement
   * time-out, so a merely slow statement is cancelled by the server first; past it the connection is dropped.
   */
  postgresQueryMs: number;
  /** Opening a connection, or waiting for a free one in the pool. */
  postgresConnectMs: number;
  /** Waiting for another hop of the same session to release its lock. */
  sessionLockWaitMs: number;
  /** Waiting for a place to check a PIN while PIN_MAX_ATTEMPTS others on the same Customer ID are being checked. */
  pinAttemptWaitMs: number;
  /**
   * Expected wait for a PIN hash slot past which the hop answers "busy" instead of queueing. The last fifth of the
   * budget is left to the hash itself (~50–100 ms) and the database work around it (milliseconds when healthy). Shed
   * no earlier than that: a session shed while its hop still had time to hash has spent its earlier hops' CPU for
   * nothing, and its re-dial spends more.
   */
  pinHashWaitMs: number;
}

export function dependencyTimeouts(hopBudgetMs: number): DependencyTimeouts {
  const share = (fraction: number): number => Math.round(hopBudgetMs * fraction);
  return {
    redisCommandMs: share(0.4),
    postgresStatementMs: share(0.5),
    postgresQueryMs: share(0.6),
    postgresConnectMs: share(0.6),
    sessionLockWaitMs: share(0.5),
    pinAttemptWaitMs: share(0.5),
    pinHashWaitMs: share(0.8),
  };
}
