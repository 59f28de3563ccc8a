import { AddressInfo, createServer, Server, Socket } from 'node:net';

/** A loopback port that nothing listens on right now: a dependency that is "stopped". */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Blackhole {
  port: number;
  close(): Promise<void>;
}

/** Accepts TCP connections and never answers: a dependency that hangs, to exercise time-outs. */
export async function startBlackhole(): Promise<Blackhole> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
