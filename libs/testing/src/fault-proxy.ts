import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net';

/**
 * How the proxy treats traffic from now on.
 * - `pass`: bytes flow both ways untouched.
 * - `reset`: every open connection is reset (TCP RST), and every new one is reset on accept.
 * - `stale`: connections stay open and acknowledged at the TCP level, but nothing is forwarded either way,
 *   like a peer behind a NAT that dropped its mapping. A connection that went stale stays dead for good,
 *   also after the mode changes back, as it would on a real network; new connections follow the new mode.
 * - `delay`: every chunk is forwarded `ms` later, in order.
 */
export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'reset' }
  | { kind: 'stale' }
  | { kind: 'delay'; ms: number };

export interface FaultProxy {
  /** Loopback port to point the client at instead of the target. */
  readonly port: number;
  readonly host: string;
  readonly mode: FaultMode;
  setMode(mode: FaultMode): void;
  /**
   * Sends new connections to another server from now on, and resets every open one, as a Kubernetes Service whose
   * endpoint moved to another pod (the old pod's connections do not follow it).
   */
  setTarget(target: FaultProxyTarget): void;
  /** Connections accepted since start (a reconnect shows up as a new one). */
  readonly acceptedConnections: number;
  /** Client connections open right now, dead or alive. */
  readonly openConnections: number;
  /** Chunks held by a delay right now, both directions. */
  readonly heldChunks: number;
  /** Resolves when the accepted-connection count reaches `count` (e.g. the client reconnected). */
  waitForConnections(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface FaultProxyTarget {
  host?: string;
  port: number;
}

interface Link {
  client: Socket;
  upstream: Socket;
  dead: boolean;
  /** Delayed chunks of this link, chained so that a later chunk never overtakes an earlier one. */
  queue: Promise<void>;
  /** Chunks in `queue` still waiting out their delay. */
  delayed: number;
}

/** A TCP proxy on loopback whose behaviour the test switches at will, to make a dependency slow, cut or silently dead. */
export async function startFaultProxy(
  target: FaultProxyTarget,
  initial: FaultMode = { kind: 'pass' },
): Promise<FaultProxy> {
  let targetHost = target.host ?? '127.0.0.1';
  let targetPort = target.port;
  const links = new Set<Link>();
  const clients = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const connectionWaiters: { count: number; resolve: () => void }[] = [];
  let mode: FaultMode = initial;
  let accepted = 0;

  const forward = (link: Link, to: () => Socket, chunk: Buffer): void => {
    if (link.dead) return;
    if (mode.kind === 'delay') {
      const ms = mode.ms;
      link.delayed += 1;
      link.queue = link.queue.then(
        () =>
          new Promise<void>((resolve) =>
            timers.add(
              setTimeout(function deliver(this: NodeJS.Timeout) {
                timers.delete(this);
                if (!link.dead && !to().destroyed) to().write(chunk);
                link.delayed -= 1;
                resolve();
              }, ms),
            ),
          ),
      );
      return;
    }
    if (mode.kind !== 'pass') return;
    // Chunks still waiting out a delay go first: TCP never reorders a byte stream, and neither may the proxy when
    // the delay is lifted.
    if (link.delayed > 0) {
      link.queue = link.queue.then(() => {
        if (!link.dead && !to().destroyed) to().write(chunk);
      });
    } else to().write(chunk);
  };

  const reset = (link: Link): void => {
    link.dead = true;
    links.delete(link);
    link.client.resetAndDestroy();
    link.upstream.destroy();
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    for (const waiter of connectionWaiters.filter((w) => accepted >= w.count)) {
      connectionWaiters.splice(connectionWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    client.on('error', () => undefined);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (mode.kind === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    const link: Link = {
      client,
      upstream,
      dead: mode.kind === 'stale',
      queue: Promise.resolve(),
      delayed: 0,
    };
    links.add(link);
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => forward(link, () => upstream, chunk));
    upstream.on('data', (chunk: Buffer) => forward(link, () => client, chunk));
    const drop = (): void => {
      links.delete(link);
      // A stale link keeps its client side open: the client must find out by itself.
      if (link.dead) {
        upstream.destroy();
        return;
      }
      client.destroy();
      upstream.destroy();
    };
    upstream.on('close', drop);
    client.on('close', () => {
      links.delete(link);
      upstream.destroy();
    });
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    host: '127.0.0.1',
    get mode() {
      return mode;
    },
    setMode(next: FaultMode) {
      mode = next;
      if (next.kind === 'reset') for (const link of [...links]) reset(link);
      if (next.kind === 'stale') for (const link of links) link.dead = true;
    },
    setTarget(next: FaultProxyTarget) {
      targetHost = next.host ?? '127.0.0.1';
      targetPort = next.port;
      for (const link of [...links]) reset(link);
    },
    get acceptedConnections() {
      return accepted;
    },
    get openConnections() {
      return clients.size;
    },
    get heldChunks() {
      return [...links].reduce((sum, link) => sum + link.delayed, 0);
    },
    waitForConnections(count: number) {
      if (accepted >= count) return Promise.resolve();
      return new Promise<void>((resolve) => connectionWaiters.push({ count, resolve }));
    },
    async close() {
      for (const link of links) {
        link.dead = true;
        link.upstream.destroy();
      }
      links.clear();
      for (const client of clients) client.destroy();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
