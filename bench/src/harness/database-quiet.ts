import { Client } from 'pg';

export interface DatabaseQuietOptions {
  /** How often the database's running statements are counted. */
  intervalMs: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
}

export const DATABASE_QUIET: DatabaseQuietOptions = { intervalMs: 50, timeoutMs: 30_000 };

/**
 * Waits until a database runs no statement (other than the counting one). A load run's window closes on the HTTP
 * side only: PostgreSQL finishes every statement it was given, so a floor whose count over a million rows takes
 * 1.4 s leaves sixteen of them running into whatever is measured next, which is then charged for them. Resolves
 * false on time-out.
 */
export async function waitUntilNoStatementRuns(
  countRunning: () => Promise<number>,
  sleep: (ms: number) => Promise<void>,
  options: DatabaseQuietOptions = DATABASE_QUIET,
): Promise<boolean> {
  for (let waitedMs = 0; ; waitedMs += options.intervalMs) {
    if ((await countRunning()) === 0) return true;
    if (waitedMs >= options.timeoutMs) return false;
    await sleep(options.intervalMs);
  }
}

/** One connection that counts the statements running in its database, other sessions' only. */
export class RunningStatements {
  private constructor(private readonly client: Client) {}

  static async connect(databaseUrl: string): Promise<RunningStatements> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    return new RunningStatements(client);
  }

  async count(): Promise<number> {
    const { rows } = await this.client.query<{ running: number }>(
      `SELECT count(*)::int AS running FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    return rows[0]?.running ?? 0;
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
