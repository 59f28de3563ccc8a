import { withDeadline } from '@dmrv/deadline';

/** One dependency that readiness must see answering: PostgreSQL, Redis, a gRPC upstream, ... */
export interface DependencyProbe {
  name: string;
  /** Resolves when the dependency answered; rejects (or times out) when it did not. */
  check(): Promise<void>;
  /** Default 2000 ms: a probe must answer well inside an orchestrator's probe timeout. */
  timeoutMs?: number;
  /**
   * Default true. `false`: reported in the body, but its being down does not make the instance unready (a read
   * replica the service reads around: taking every instance out of the load balancer would turn one lost replica
   * into an outage).
   */
  required?: boolean;
}

const DEFAULT_TIMEOUT_MS = 2000;

/** Runs one probe within its deadline: resolves when the dependency answered, rejects when it did not in time. */
export async function checkWithin(probe: DependencyProbe): Promise<void> {
  const ms = probe.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  await withDeadline(() => probe.check(), {
    ms,
    what: probe.name,
    error: () => new ProbeTimeoutError(probe.name, ms),
  });
}

export class ProbeTimeoutError extends Error {
  constructor(name: string, timeoutMs: number) {
    super(`${name} did not answer within ${timeoutMs} ms`);
    this.name = 'ProbeTimeoutError';
  }
}

/** PostgreSQL is ready when it runs a query, not merely when a pool object exists. */
export function postgresProbe(
  run: (sql: string) => Promise<unknown>,
  name = 'database',
  timeoutMs?: number,
): DependencyProbe {
  return {
    name,
    timeoutMs,
    check: async () => {
      await run('SELECT 1');
    },
  };
}

/** Redis is ready when it answers PING with PONG. */
export function redisProbe(
  client: { ping(): Promise<string> },
  name = 'redis',
  timeoutMs?: number,
): DependencyProbe {
  return {
    name,
    timeoutMs,
    check: async () => {
      const reply = await client.ping();
      if (reply !== 'PONG') throw new Error(`unexpected PING reply ${JSON.stringify(reply)}`);
    },
  };
}
