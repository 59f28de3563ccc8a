import { EventEmitter } from 'node:events';
import {
  ChangeListener,
  ChangeListenerOptions,
  ListenerConnection,
  ListenerNotification,
  PROBE_CHANNEL,
  RECONNECT_MAX_MS,
} from './change-listener';

/**
 * A stand-in for the server: notifications sent "from the pool" reach every connection LISTENing to their channel,
 * before the answer to that connection's next statement (as PostgreSQL does), or never (as PGlite does).
 */
class FakeServer {
  readonly connections: FakeConnection[] = [];
  crossConnectionDelivery = true;
  refuseConnections: Error | null = null;

  connect = (): ListenerConnection => {
    const connection = new FakeConnection(this);
    this.connections.push(connection);
    return connection;
  };

  notifyFromPool = (channel: string, payload: string): Promise<void> => {
    if (this.crossConnectionDelivery) {
      for (const connection of this.connections)
        if (connection.listening.has(channel)) connection.pending.push({ channel, payload });
    }
    return Promise.resolve();
  };

  get last(): FakeConnection {
    return this.connections[this.connections.length - 1]!;
  }
}

class FakeConnection extends EventEmitter implements ListenerConnection {
  readonly listening = new Set<string>();
  readonly pending: ListenerNotification[] = [];
  readonly statements: string[] = [];
  ended = false;
  /** A statement answered never, as on a connection that died without a FIN. */
  hang = false;

  constructor(private readonly server: FakeServer) {
    super();
  }

  connect(): Promise<unknown> {
    return this.server.refuseConnections ? Promise.reject(this.server.refuseConnections) : Promise.resolve();
  }

  query(sql: string): Promise<unknown> {
    this.statements.push(sql);
    if (this.ended) return Promise.reject(new Error('Client was closed and is not queryable'));
    if (this.hang) return new Promise(() => undefined);
    const listen = /^LISTEN (\w+)$/.exec(sql);
    if (listen) this.listening.add(listen[1]!);
    if (sql === 'UNLISTEN *') this.listening.clear();
    this.deliver();
    return Promise.resolve({});
  }

  deliver(): void {
    for (const message of this.pending.splice(0)) this.emit('notification', message);
  }

  end(): Promise<unknown> {
    this.ended = true;
    return Promise.resolve();
  }

  /** The backend went away (pg_terminate_backend, a restart). */
  terminate(): void {
    this.emit('error', new Error('terminating connection due to administrator command'));
    this.emit('end');
  }
}

describe('ChangeListener', () => {
  let server: FakeServer;
  let logger: { log: jest.Mock; warn: jest.Mock };
  let listener: ChangeListener;
  let events: string[];

  function create(overrides: Partial<ChangeListenerOptions> = {}): ChangeListener {
    const created = new ChangeListener({
      channels: ['clients', 'rollups'],
      connect: server.connect,
      notifyFromPool: server.notifyFromPool,
      logger,
      queryTimeoutMs: 5_000,
      ...overrides,
    });
    for (const name of ['live', 'down', 'unsupported'] as const) created.on(name, () => events.push(name));
    created.on('notification', (channel, payload) => events.push(`${channel}:${payload}`));
    return created;
  }

  beforeEach(() => {
    jest.useFakeTimers();
    server = new FakeServer();
    logger = { log: jest.fn(), warn: jest.fn() };
    events = [];
    listener = create();
  });

  afterEach(async () => {
    await listener.stop();
    jest.useRealTimers();
  });

  it('goes live once it LISTENs and a notification sent from another connection has arrived', async () => {
    listener.start();
    await listener.started();
    expect(listener.state).toBe('live');
    expect(events).toEqual(['live']);
    expect(server.last.statements.filter((sql) => sql.startsWith('LISTEN'))).toEqual([
      'LISTEN clients',
      'LISTEN rollups',
      `LISTEN ${PROBE_CHANNEL}`,
    ]);
  });

  it('passes on the notifications of its channels, and never probes (its own or another replica’s)', async () => {
    listener.start();
    await listener.started();
    server.last.pending.push(
      { channel: 'clients', payload: 'rc_1' },
      { channel: PROBE_CHANNEL, payload: 'someone-else' },
      { channel: 'rollups' },
    );
    await listener.synchronize();
    expect(events).toEqual(['live', 'clients:rc_1', 'rollups:']);
  });

  it('synchronize() resolves only after the notifications committed before it were applied', async () => {
    listener.start();
    await listener.started();
    await server.notifyFromPool('clients', 'rc_2');
    expect(events).toEqual(['live']);
    await listener.synchronize();
    expect(events).toEqual(['live', 'clients:rc_2']);
  });

  it('stops at unsupported when the probe never arrives (PGlite), says so once at info, and leaves no LISTEN behind', async () => {
    server.crossConnectionDelivery = false;
    listener.start();
    await jest.advanceTimersByTimeAsync(1_000);
    await listener.started();
    expect(listener.state).toBe('unsupported');
    expect(events).toEqual(['unsupported']);
    expect(logger.log).toHaveBeenCalledTimes(1);
    expect(logger.log.mock.calls[0]![0]).toMatch(/does not deliver notifications across connections/);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(server.last.statements).toContain('UNLISTEN *');
    expect(server.last.ended).toBe(true);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(server.connections).toHaveLength(1);
    await listener.synchronize();
    expect(server.last.statements.filter((sql) => sql === 'SELECT 1')).toHaveLength(1);
  });

  it('accepts a probe that arrives late, within the grace period', async () => {
    let late: (() => void) | undefined;
    const created = create({
      notifyFromPool: (channel, payload) => {
        late = () => server.last.emit('notification', { channel, payload });
        return Promise.resolve();
      },
    });
    created.start();
    await jest.advanceTimersByTimeAsync(500);
    late!();
    await created.started();
    expect(created.state).toBe('live');
    await created.stop();
  });

  it('goes down when the connection is lost, reconnects with doubling delays, and goes live again', async () => {
    listener.start();
    await listener.started();
    server.refuseConnections = new Error('connection refused');
    server.last.terminate();
    expect(listener.state).toBe('down');
    expect(events).toEqual(['live', 'down']);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringMatching(/change listener lost \(terminating connection/),
    );

    await jest.advanceTimersByTimeAsync(99);
    expect(server.connections).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(server.connections).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(199);
    expect(server.connections).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(server.connections).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(400 + 800 + 1_600 + 3_200 + 6_400);
    expect(server.connections).toHaveLength(8);
    // The delay stops doubling at RECONNECT_MAX_MS.
    await jest.advanceTimersByTimeAsync(RECONNECT_MAX_MS);
    expect(server.connections).toHaveLength(9);
    await jest.advanceTimersByTimeAsync(RECONNECT_MAX_MS);
    expect(server.connections).toHaveLength(10);

    server.refuseConnections = null;
    await jest.advanceTimersByTimeAsync(RECONNECT_MAX_MS);
    expect(listener.state).toBe('live');
    expect(events.filter((event) => event === 'live')).toHaveLength(2);
    // A successful connection resets the backoff.
    server.last.terminate();
    await jest.advanceTimersByTimeAsync(100);
    expect(listener.state).toBe('live');
  });

  it('handles the loss of a connection once, however many ways it is reported', async () => {
    listener.start();
    await listener.started();
    const connection = server.last;
    connection.terminate();
    connection.terminate();
    expect(events).toEqual(['live', 'down']);
    await jest.advanceTimersByTimeAsync(100);
    expect(server.connections).toHaveLength(2);
  });

  it('treats a heartbeat that gets no answer as a lost connection', async () => {
    listener.start();
    await listener.started();
    server.last.hang = true;
    await jest.advanceTimersByTimeAsync(10_000 + 4_999);
    expect(listener.state).toBe('live');
    await jest.advanceTimersByTimeAsync(1);
    expect(listener.state).toBe('down');
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/listener heartbeat timed out/));
  });

  it('marks itself down before synchronize() resolves when the barrier finds the connection dead', async () => {
    listener.start();
    await listener.started();
    await server.last.end();
    await listener.synchronize();
    expect(listener.state).toBe('down');
    expect(events).toEqual(['live', 'down']);
  });

  it('keeps retrying when the database is unreachable at start, warning once', async () => {
    server.refuseConnections = new Error('connection refused');
    listener.start();
    await listener.started();
    expect(listener.state).toBe('down');
    await jest.advanceTimersByTimeAsync(100 + 200 + 400);
    expect(server.connections).toHaveLength(4);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    server.refuseConnections = null;
    await jest.advanceTimersByTimeAsync(800);
    expect(listener.state).toBe('live');
  });

  it('stops for good: closes its connection and never reconnects', async () => {
    listener.start();
    await listener.started();
    const connection = server.last;
    await listener.stop();
    expect(listener.state).toBe('stopped');
    expect(connection.ended).toBe(true);
    expect(events).toEqual(['live', 'down']);
    connection.terminate();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(server.connections).toHaveLength(1);
  });
});
