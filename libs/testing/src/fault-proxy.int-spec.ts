import { once } from 'node:events';
import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net';
import { FaultProxy, startFaultProxy } from './fault-proxy';

/** Echo server: every chunk comes back. */
async function startEcho(): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, sockets };
}

async function connect(proxy: FaultProxy): Promise<Socket> {
  const socket = createConnection({ host: proxy.host, port: proxy.port });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** Sends `text` and resolves with the first chunk that comes back. */
async function roundTrip(socket: Socket, text: string): Promise<string> {
  const reply = once(socket, 'data').then(([chunk]) => (chunk as Buffer).toString());
  socket.write(text);
  return reply;
}

describe('fault proxy', () => {
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let proxy: FaultProxy;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    echo = await startEcho();
    proxy = await startFaultProxy({ port: echo.port });
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await proxy.close();
    for (const socket of echo.sockets) socket.destroy();
    await new Promise<void>((resolve) => echo.server.close(() => resolve()));
  });

  const open = async (): Promise<Socket> => {
    const socket = await connect(proxy);
    sockets.push(socket);
    return socket;
  };

  it('passes bytes both ways', async () => {
    const socket = await open();
    await expect(roundTrip(socket, 'hello')).resolves.toBe('hello');
    expect(proxy.acceptedConnections).toBe(1);
  });

  it('reset: open connections get ECONNRESET and new ones are reset on accept', async () => {
    const socket = await open();
    await roundTrip(socket, 'x');
    const failed = new Promise((resolve) => socket.once('close', resolve));
    const error = new Promise<NodeJS.ErrnoException>((resolve) => socket.once('error', resolve));
    proxy.setMode({ kind: 'reset' });
    await failed;
    expect((await error).code).toBe('ECONNRESET');

    const next = createConnection({ host: proxy.host, port: proxy.port });
    const nextError = new Promise<NodeJS.ErrnoException>((resolve) => next.once('error', resolve));
    expect((await nextError).code).toBe('ECONNRESET');
  });

  it('stale: the connection stays open but nothing comes back, even after the mode returns to pass', async () => {
    const socket = await open();
    await roundTrip(socket, 'before');
    proxy.setMode({ kind: 'stale' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.write('lost');

    // A connection opened while stale is dead too; one opened after the mode returns to pass works.
    const duringStale = await open();
    duringStale.on('data', (chunk: Buffer) => (received += chunk.toString()));
    duringStale.write('lost too');
    proxy.setMode({ kind: 'pass' });
    const after = await open();
    await expect(roundTrip(after, 'after')).resolves.toBe('after');
    socket.write('still lost');
    await expect(roundTrip(after, 'again')).resolves.toBe('again');

    expect(received).toBe('');
    expect(socket.destroyed).toBe(false);
    expect(proxy.openConnections).toBe(3);
  });

  it('delay: chunks arrive late and in order', async () => {
    const socket = await open();
    proxy.setMode({ kind: 'delay', ms: 150 });
    let received = '';
    const done = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.length === 6) resolve();
      }),
    );
    const started = process.hrtime.bigint();
    socket.write('ab');
    socket.write('cd');
    socket.write('ef');
    await done;
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(received).toBe('abcdef');
    // Two legs of 150 ms each for the first chunk: the proxy did hold the bytes.
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
  });

  it('delay lifted with chunks still held: the held ones arrive first, as TCP keeps a stream in order', async () => {
    const socket = await open();
    proxy.setMode({ kind: 'delay', ms: 200 });
    let received = '';
    const done = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.length === 6) resolve();
      }),
    );
    socket.write('ab');
    socket.write('cd');
    while (proxy.heldChunks < 1) await new Promise((resolve) => setImmediate(resolve));
    proxy.setMode({ kind: 'pass' });
    socket.write('ef');
    await done;
    expect(received).toBe('abcdef');
  });

  it('setTarget: open connections are reset and new ones reach the new target', async () => {
    const tagged = createServer((socket) => socket.end('other'));
    try {
      await new Promise<void>((resolve) => tagged.listen(0, '127.0.0.1', resolve));
      const socket = await open();
      await roundTrip(socket, 'x');
      const error = new Promise<NodeJS.ErrnoException>((resolve) => socket.once('error', resolve));
      proxy.setTarget({ port: (tagged.address() as AddressInfo).port });
      expect((await error).code).toBe('ECONNRESET');

      const next = await open();
      await expect(once(next, 'data').then(([chunk]) => (chunk as Buffer).toString())).resolves.toBe('other');
    } finally {
      await new Promise<void>((resolve) => tagged.close(() => resolve()));
    }
  });

  it('waitForConnections resolves when a client (re)connects', async () => {
    const waited = proxy.waitForConnections(2);
    await open();
    await open();
    await expect(waited).resolves.toBeUndefined();
  });
});
