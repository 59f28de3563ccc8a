import { connect } from 'node:net';
import { STOPPED_PORT } from './network';

describe('STOPPED_PORT', () => {
  it('refuses connections on loopback, as a stopped dependency does', async () => {
    const error = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const socket = connect(STOPPED_PORT, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        reject(new Error(`something listens on 127.0.0.1:${STOPPED_PORT}`));
      });
      socket.once('error', resolve);
    });
    expect(error.code).toBe('ECONNREFUSED');
  });
});
