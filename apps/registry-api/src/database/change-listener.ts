import { settledWithin } from '@dmrv/deadline';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';

/** `api_clients` rows changed; the payload is the client id (empty: every client, e.g. after TRUNCATE). */
export const API_CLIENT_CHANNEL = 'registry_api_clients';
/** The rollups were refreshed or `projects` changed: every aggregate answer may have changed. */
export const ROLLUP_CHANNEL = 'registry_rollups';
/** A table the record endpoints read changed; the payload is the table's name. */
export const RECORD_CHANNEL = 'registry_records';
/** Round trips that prove notifications cross connections on this server; ignored by everyone else. */
export const PROBE_CHANNEL = 'registry_listener_probe';
/** How operators (and tests) find the listener in `pg_stat_activity`. */
export const LISTENER_APPLICATION_NAME = 'registry-api listener';

/**
 * - `idle`: not started. `starting`: first connection not made yet.
 * - `live`: LISTENing, and notifications are known to arrive.
 * - `down`: connection lost or not made; reconnecting with backoff. `unsupported`: the server does not deliver
 *   notifications across connections (the embedded PGlite); never retried. `stopped`: the app is closing.
 */
export type ListenerState = 'idle' | 'starting' | 'live' | 'down' | 'unsupported' | 'stopped';

export interface ListenerNotification {
  channel: string;
  payload?: string;
}

/** What the listener needs of a connection; `pg.Client` is one. */
export interface ListenerConnection {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: 'notification', listener: (message: ListenerNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

export interface ListenerLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface ChangeListenerOptions {
  channels: readonly string[];
  /** A new, not yet connected connection of its own (never one of the request pool's). */
  connect: () => ListenerConnection;
  /** Sends a notification from another connection (the pool), for the delivery probe. */
  notifyFromPool: (channel: string, payload: string) => Promise<void>;
  logger: ListenerLogger;
  /**
   * The database's query timeout: the heartbeat runs every two of them and declares the connection dead after one,
   * so a connection that died without a reset is noticed within three.
   */
  queryTimeoutMs: number;
}

/** Reconnection backoff: doubling from the first delay up to the last. */
export const RECONNECT_MIN_MS = 100;
export const RECONNECT_MAX_MS = 10_000;
/** How long a probe may still arrive after the round trip that should have carried it. */
export const PROBE_GRACE_MS = 1_000;

interface ListenerEvents {
  live: [];
  down: [];
  unsupported: [];
  notification: [channel: string, payload: string];
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * One dedicated connection that LISTENs for changes the in-process caches depend on. Caches trust themselves only
 * while it is `live`: every transition (`live`, `down`) tells them to start over, because notifications sent while
 * the connection was away are lost.
 *
 * `live` is reached only after a probe proved that a notification sent from another connection arrives here; PGlite
 * accepts LISTEN but delivers a notification to whichever connection runs the next statement, so there the listener
 * stops at `unsupported` and the caches fall back to reading the database.
 */
export class ChangeListener extends EventEmitter<ListenerEvents> {
  private currentState: ListenerState = 'idle';
  private connection: ListenerConnection | null = null;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly probes = new Map<string, () => void>();
  private firstAttempt: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChangeListenerOptions) {
    super();
  }

  get state(): ListenerState {
    return this.currentState;
  }

  /** Connects in the background: the service answers meanwhile, reading the database as before. */
  start(): void {
    if (this.currentState !== 'idle') return;
    this.currentState = 'starting';
    this.firstAttempt = this.attempt();
  }

  /** Settles once the first connection attempt has ended: live, unsupported or down. */
  started(): Promise<void> {
    return this.firstAttempt;
  }

  /**
   * Resolves once every notification committed before the call has been applied, or once the caches no longer trust
   * themselves. PostgreSQL sends a listener its pending notifications before the answer to its next statement, so
   * one round trip on this connection is the barrier.
   */
  async synchronize(): Promise<void> {
    const connection = this.connection;
    if (this.currentState !== 'live' || !connection) return;
    try {
      await connection.query('SELECT 1');
    } catch (error) {
      this.lost(connection, error);
    }
  }

  async stop(): Promise<void> {
    const wasLive = this.currentState === 'live';
    this.currentState = 'stopped';
    this.clearTimers();
    const connection = this.connection;
    this.connection = null;
    for (const resolve of this.probes.values()) resolve();
    this.probes.clear();
    if (wasLive) this.emit('down');
    // A connection that died without a FIN never confirms its end; shutting down must not wait for it.
    if (connection) await withTimeout(connection.end(), 2_000, 'listener close').catch(() => undefined);
  }

  private async attempt(): Promise<void> {
    this.reconnectTimer = null;
    if (this.currentState === 'stopped') return;
    const connection = this.options.connect();
    this.connection = connection;
    connection.on('notification', (message) => {
      if (connection === this.connection) this.received(message);
    });
    connection.on('error', (error) => this.lost(connection, error));
    connection.on('end', () => this.lost(connection, new Error('connection ended')));
    try {
      await connection.connect();
      for (const channel of [...this.options.channels, PROBE_CHANNEL])
        await connection.query(`LISTEN ${channel}`);
      const delivered = await this.probe(connection);
      if (connection !== this.connection) return;
      if (!delivered) {
        await this.giveUp(connection);
        return;
      }
      this.failures = 0;
      this.currentState = 'live';
      this.heartbeatTimer = setInterval(
        () => void this.heartbeat(connection),
        2 * this.options.queryTimeoutMs,
      );
      this.heartbeatTimer.unref();
      this.options.logger.log('listening for api_clients, rollup and record changes: caches enabled');
      this.emit('live');
    } catch (error) {
      this.lost(connection, error);
    }
  }

  private async probe(connection: ListenerConnection): Promise<boolean> {
    const token = randomUUID();
    let arrived = false;
    const delivered = new Promise<void>((resolve) => {
      this.probes.set(token, () => {
        arrived = true;
        resolve();
      });
    });
    try {
      await this.options.notifyFromPool(PROBE_CHANNEL, token);
      await connection.query('SELECT 1');
      if (arrived) return true;
      await settledWithin(delivered, { ms: PROBE_GRACE_MS, what: 'probe notification', unref: true });
      return arrived;
    } finally {
      this.probes.delete(token);
    }
  }

  private received(message: ListenerNotification): void {
    if (message.channel === PROBE_CHANNEL) {
      // Other replicas probe the same channel; only our own token means anything here.
      this.probes.get(message.payload ?? '')?.();
      return;
    }
    this.emit('notification', message.channel, message.payload ?? '');
  }

  private async heartbeat(connection: ListenerConnection): Promise<void> {
    // A connection that died without a FIN (a network partition) would otherwise look live, and the caches with it.
    try {
      await withTimeout(connection.query('SELECT 1'), this.options.queryTimeoutMs, 'listener heartbeat');
    } catch (error) {
      this.lost(connection, error);
    }
  }

  private async giveUp(connection: ListenerConnection): Promise<void> {
    this.connection = null;
    this.currentState = 'unsupported';
    this.options.logger.log(
      'this PostgreSQL does not deliver notifications across connections (embedded PGlite?): ' +
        'API clients are read per request and aggregate answers are cached for their TTL only',
    );
    this.emit('unsupported');
    // PGlite multiplexes every connection onto one session: leave no LISTEN behind in it.
    await connection
      .query('UNLISTEN *')
      .catch(() => undefined)
      .then(() => connection.end())
      .catch(() => undefined);
  }

  private lost(connection: ListenerConnection, error: unknown): void {
    if (connection !== this.connection) return;
    this.connection = null;
    this.clearTimers();
    void connection.end().catch(() => undefined);
    if (this.currentState === 'stopped') return;
    const wasLive = this.currentState === 'live';
    this.currentState = 'down';
    const reason = error instanceof Error ? error.message : String(error);
    if (wasLive) this.options.logger.warn(`change listener lost (${reason}): caches off until it reconnects`);
    else if (this.failures === 0)
      this.options.logger.warn(`change listener cannot connect (${reason}): retrying`);
    this.emit('down');
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.failures);
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => void this.attempt(), delay);
    this.reconnectTimer.unref();
  }

  private clearTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.heartbeatTimer = null;
    this.reconnectTimer = null;
  }
}
