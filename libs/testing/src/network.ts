import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A loopback port that refuses connections: a dependency that is "stopped". It is a privileged port that nothing on
 * these machines listens on and no test binds, so unlike a port found free and then released, no parallel test can
 * take it between the choice and the use (network.int-spec.ts checks that it refuses).
 */
export const STOPPED_PORT = 1;

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
