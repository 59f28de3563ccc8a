import { pino } from 'pino';
import { createServiceLoggers } from './logger-options';
import { RequestLogging } from './request-logging';
import { PinoLogger } from './service-logger';

function capture(quietPaths?: string[]): { logging: RequestLogging; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  };
  const loggers = createServiceLoggers({
    service: 'unit',
    level: 'info',
    pretty: false,
    destination,
    quietPaths,
  });
  return { logging: new RequestLogging(loggers), lines };
}

const completed = {
  requestId: 'r-1',
  method: 'GET',
  url: '/v1/households/stats?region=Nairobi',
  client: '203.0.113.7',
  userAgent: 'curl/8',
  statusCode: 200,
  responseTimeMs: 1.23456,
};

describe('RequestLogging', () => {
  it('writes one access line with the request id, method, path, client address, user agent, status and rounded latency', () => {
    const { logging, lines } = capture();
    logging.completed(completed);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        service: 'unit',
        msg: 'request completed',
        requestId: 'r-1',
        req: { method: 'GET', path: '/v1/households/stats', client: '203.0.113.7', userAgent: 'curl/8' },
        res: { statusCode: 200 },
        responseTime: 1.23,
      }),
    ]);
  });

  it('never writes the query string: it may carry a PIN or a token', () => {
    const { logging, lines } = capture();
    logging.completed({ ...completed, url: '/api/ussd?text=1*2*12345&token=s3cret-operator-token' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ req: { path: '/api/ussd' } });
    expect(JSON.stringify(lines)).not.toMatch(/12345|s3cret|text=/);
  });

  it('names the authenticated client when the app identified one', () => {
    const { logging, lines } = capture();
    logging.completed({ ...completed, clientId: 'rc_0123456789abcdef' });
    logging.completed(completed);
    expect(lines.map((line) => (line.req as Record<string, unknown>).clientId)).toEqual([
      'rc_0123456789abcdef',
      undefined,
    ]);
  });

  it('logs a 5xx at error level and a 4xx at info', () => {
    const { logging, lines } = capture();
    logging.completed({ ...completed, statusCode: 503 });
    logging.completed({ ...completed, statusCode: 404 });
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [50, 'request errored'],
      [30, 'request completed'],
    ]);
  });

  it('writes nothing for quiet paths, whatever their query string', () => {
    const { logging, lines } = capture(['/health']);
    logging.completed({ ...completed, url: '/health' });
    logging.completed({ ...completed, url: '/health?probe=1' });
    expect(lines).toEqual([]);
  });

  it('logs paths as long as a quiet one, or beginning like one, that are not quiet', () => {
    const { logging, lines } = capture(['/health', '/']);
    for (const url of ['/healtH', '/health/', '/x', '/healthz?probe=1', '/health/live', '/'])
      logging.completed({ ...completed, url });
    expect(lines.map((line) => (line.req as Record<string, unknown>).path)).toEqual([
      '/healtH',
      '/health/',
      '/x',
      '/healthz',
      '/health/live',
    ]);
  });

  it('binds the request id to lines logged while serving, and still redacts them', () => {
    const { logging, lines } = capture();
    const logger = new PinoLogger(pino({ level: 'silent' }));
    logging.serveWith('r-2', () => {
      logger.info({ pin: '12345', session: { text: '1*2*12345' } }, 'inside');
    });
    expect(lines).toEqual([
      expect.objectContaining({
        requestId: 'r-2',
        msg: 'inside',
        pin: '[redacted]',
        session: { text: '[redacted]' },
      }),
    ]);
  });
});
