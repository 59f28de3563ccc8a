import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { once } from 'node:events';
import { AddressInfo, createConnection } from 'node:net';
import { FRAMEWORK_ERROR_MESSAGES } from '@dmrv/http-kit';
import { INVALID_INPUT_REPLY } from '../src/ussd-error.renderer';
import { Backing, captureLogs, createBacking, SERVICE_CODE, startApp } from './ussd-test-kit';

// What the HTTP layer shared by the three services does for this one: requests that Fastify or Node refuse before
// any route, and an access line that never holds a query string.
describe('ussd-gateway at the HTTP edge', () => {
  let backing: Backing;
  let app: NestFastifyApplication;
  const logs = captureLogs();

  beforeAll(async () => {
    backing = await createBacking('ussd-http-edge');
    ({ app } = await startApp(backing.env({ LOG_LEVEL: 'info' }), { logDestination: logs.stream }));
    await app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await backing?.cleanup();
  });

  it('a path that is not valid percent-encoding: 400 { message } with the request id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/%zz',
      headers: { 'x-request-id': 'bad-url-1' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toBe('bad-url-1');
    expect(response.json()).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.badUrl });
  });

  it('headers over the limit on the session endpoint: the aggregator still gets a USSD text, not JSON', async () => {
    const { port } = app.getHttpServer().address() as AddressInfo;
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    await once(socket, 'connect');
    const body = JSON.stringify({
      sessionId: 'edge-1',
      serviceCode: SERVICE_CODE,
      phoneNumber: '+254700000001',
      text: '',
    });
    socket.write(
      `POST /api/ussd HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Big: ${'a'.repeat(20_000)}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await once(socket, 'close');
    const [head, text] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/\r\ncontent-type: text\/plain; charset=utf-8\r\n/);
    expect(text).toBe(INVALID_INPUT_REPLY);
  });

  it('the access line holds the path only, never the query (a PIN in ?text= stays out of the log)', async () => {
    await app.inject({
      method: 'POST',
      url: '/api/ussd?text=1*2*24680',
      headers: { 'content-type': 'application/json' },
      payload: { sessionId: 'edge-2', serviceCode: SERVICE_CODE, phoneNumber: '+254700000002', text: '' },
    });
    const access = logs.lines.filter(
      (line) => line.msg === 'request completed' || line.msg === 'request errored',
    );
    expect(access.map((line) => line.req)).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/api/ussd' }),
    );
    expect(logs.raw.join('')).not.toContain('24680');
  });
});
