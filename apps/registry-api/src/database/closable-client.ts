import { Socket } from 'node:net';
import { Client, type ClientConfig } from 'pg';

/**
 * A node-postgres client that keeps a handle on its own socket, so that a connection found silent can be closed at
 * once. `Client.end()` on an idle connection writes a goodbye and half-closes, which over a network path that stopped
 * answering lingers until the OS gives up; destroying the socket closes it now, and the pool drops the client as it
 * does any broken connection. Given to pools through pg-pool's documented `Client` option, with node-postgres's
 * documented `stream` setting (the socket it would otherwise create itself).
 */
export class ClosableClient extends Client {
  private readonly socket: Socket;

  constructor(config?: ClientConfig) {
    const socket = new Socket();
    super({ ...config, stream: () => socket });
    this.socket = socket;
  }

  /** Closes the connection now; resolves when the client has seen it end. */
  closeNow(): Promise<void> {
    const ended = new Promise<void>((resolve) => this.once('end', () => resolve()));
    this.socket.destroy();
    return ended;
  }
}
