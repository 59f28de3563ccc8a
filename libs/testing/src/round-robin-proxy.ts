import { once } from 'node:events';
import { request } from 'node:http';
import { AddressInfo, createServer, Socket } from 'node:net';

/** A loopback TCP load balancer: each new connection goes to the next target in turn. */
export interface RoundRobinProxy {
  port: number;
  /** Connections handed to each target so far, in the order the targets were given. */
  connections(): number[];
  close(): Promise<void>;
}

/**
 * What a layer-4 load balancer (a Kubernetes Service, HAProxy in TCP mode) does in front of several instances:
 * every connection to `port` is piped to the next of `targetPorts` (127.0.0.1). Keep-alive connections stay with
 * their instance; `httpOnce` opens one connection per request, so consecutive requests alternate.
 */
export async function startRoundRobinProxy(targetPorts: readonly number[]): Promise<RoundRobinProxy> {
  if (targetPorts.length === 0) throw new Error('a round-robin proxy needs at least one target');
  const counts = targetPorts.map(() => 0);
  const sockets = new Set<Socket>();
  let next = 0;
  const server = createServer((client) => {
    const index = next;
    next = (next + 1) % targetPorts.length;
    counts[index]! += 1;
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A reset on one side closes the other: the client sees the failure as it would behind a real balancer.
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.connect(targetPorts[index]!, '127.0.0.1');
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => [...counts],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request on a connection of its own (no keep-alive agent), to 127.0.0.1:`port`. */
export function httpOnce(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: {
          ...options.headers,
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** Runs `count` tasks, at most `concurrency` at a time; resolves with their results in task order. */
export async function runConcurrently<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
