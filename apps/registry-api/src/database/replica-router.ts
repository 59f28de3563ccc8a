import { DependencyUnavailableError } from '@dmrv/errors';

/** What the router needs of a database it reads from; `PoolReader` is one. */
export interface ReadTarget {
  readonly name: string;
  query<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface ReplicaState {
  name: string;
  up: boolean;
  /** Queries running on it now (what "least busy" compares). */
  inFlight: number;
}

export interface RouterLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface ReplicaRouterOptions {
  primary: ReadTarget;
  replicas: readonly ReadTarget[];
  logger: RouterLogger;
  /** First re-check of a replica taken out, doubled after each failed one up to `recheckMaxMs`. */
  recheckMinMs?: number;
  recheckMaxMs?: number;
}

// A hot standby cancels a query whose snapshot conflicts with the WAL it replays (a vacuum on the primary removed
// rows the query still needs): "canceling statement due to conflict with recovery", SQLSTATE 40001. The replica is
// healthy, the query was merely unlucky; the primary has no such conflict.
const RECOVERY_CONFLICT = '40001';

interface Replica extends ReplicaState {
  target: ReadTarget;
  failures: number;
  recheck: NodeJS.Timeout | null;
}

/**
 * Spreads reads over read replicas: the least busy replica that is up (ties in turn), the primary when none is. A
 * replica that cannot answer (refused, reset, silent, shutting down) is taken out at once and the read is repeated
 * on the next source, so a replica dying under load fails no request while the primary answers; reads are
 * idempotent, so repeating one is safe. A replica taken out is re-checked in the background (`SELECT 1`, backoff
 * from `recheckMinMs` to `recheckMaxMs`) and put back once it answers: requests never pay for finding out.
 */
export class ReplicaRouter {
  private readonly replicas: Replica[];
  private next = 0;
  private stopped = false;
  private readonly recheckMinMs: number;
  private readonly recheckMaxMs: number;

  constructor(private readonly options: ReplicaRouterOptions) {
    this.replicas = options.replicas.map((target) => ({
      name: target.name,
      target,
      up: true,
      inFlight: 0,
      failures: 0,
      recheck: null,
    }));
    this.recheckMinMs = options.recheckMinMs ?? 250;
    this.recheckMaxMs = options.recheckMaxMs ?? 10_000;
  }

  get hasReplicas(): boolean {
    return this.replicas.length > 0;
  }

  states(): ReplicaState[] {
    return this.replicas.map(({ name, up, inFlight }) => ({ name, up, inFlight }));
  }

  async read<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.fromReplicas<R>(sql, params)) ?? this.options.primary.query<R>(sql, params);
  }

  /** A read on the least busy replica that answers; undefined when none does. */
  async fromReplicas<R>(sql: string, params: readonly unknown[] = []): Promise<R[] | undefined> {
    for (let replica = this.pick(); replica; replica = this.pick()) {
      replica.inFlight += 1;
      try {
        return await replica.target.query<R>(sql, params);
      } catch (error) {
        if (error instanceof DependencyUnavailableError) this.takeOut(replica, error);
        else if (codeOf(error) === RECOVERY_CONFLICT) break;
        else throw error;
      } finally {
        replica.inFlight -= 1;
      }
    }
    return undefined;
  }

  /**
   * Readiness: pings the replica and records the outcome, so a replica found down by a probe is skipped by requests
   * too, and one found answering is put back without waiting for its re-check.
   */
  async check(name: string): Promise<void> {
    const replica = this.replicas.find((candidate) => candidate.name === name);
    if (!replica) throw new Error(`no replica ${name}`);
    try {
      await replica.target.query('SELECT 1');
    } catch (error) {
      this.takeOut(replica, error);
      throw error;
    }
    this.putBack(replica);
  }

  stop(): void {
    this.stopped = true;
    for (const replica of this.replicas) {
      if (replica.recheck) clearTimeout(replica.recheck);
      replica.recheck = null;
    }
  }

  private pick(): Replica | undefined {
    const count = this.replicas.length;
    let best: Replica | undefined;
    let bestIndex = 0;
    for (let offset = 0; offset < count; offset += 1) {
      const index = (this.next + offset) % count;
      const replica = this.replicas[index]!;
      if (replica.up && (!best || replica.inFlight < best.inFlight)) {
        best = replica;
        bestIndex = index;
      }
    }
    if (best) this.next = (bestIndex + 1) % count;
    return best;
  }

  private takeOut(replica: Replica, error: unknown): void {
    if (!replica.up) return;
    replica.up = false;
    this.options.logger.warn(
      `${replica.name} cannot answer (${describe(error)}): reading elsewhere until it does`,
    );
    this.scheduleRecheck(replica);
  }

  private putBack(replica: Replica): void {
    if (replica.recheck) clearTimeout(replica.recheck);
    replica.recheck = null;
    replica.failures = 0;
    if (replica.up) return;
    replica.up = true;
    this.options.logger.log(`${replica.name} answers again: reading from it`);
  }

  private scheduleRecheck(replica: Replica): void {
    if (this.stopped || replica.recheck) return;
    const delay = Math.min(this.recheckMaxMs, this.recheckMinMs * 2 ** replica.failures);
    replica.recheck = setTimeout(() => {
      replica.recheck = null;
      replica.target.query('SELECT 1').then(
        () => this.putBack(replica),
        () => {
          replica.failures += 1;
          this.scheduleRecheck(replica);
        },
      );
    }, delay);
    replica.recheck.unref();
  }
}

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

function describe(error: unknown): string {
  const cause = error instanceof DependencyUnavailableError ? error.cause : error;
  // By shape: socket errors come from Node's own realm, not the caller's, under a test runner's VM context.
  const message =
    typeof cause === 'object' && cause !== null && typeof (cause as Error).message === 'string'
      ? (cause as Error).message
      : String(cause);
  return message.replace(/\/\/[^@/\s]+@/g, '//[redacted]@');
}
