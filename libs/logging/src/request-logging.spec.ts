import { PinoLogger } from 'nestjs-pino';
import { createServiceLoggers } from './logger-options';
import { RequestLogging } from './request-logging';

function capture(quietPaths?: string[]): { logging: RequestLogging; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
  const loggers = createServiceLoggers({ service: 'unit', level: 'info', pretty: false, destination, quietPaths });
  return { logging: new RequestLogging(loggers), lines };
}

const completed = {
  requestId: 'r-1',
  method: 'GET',
  url: '/v1/households/stats?region=Nairobi',
  userAgent: 'curl/8',
  statusCode: 200,
  responseTimeMs: 1.23456,
};

describe('RequestLogging', () => {
  it('writes one access line with the request id, method, url, user agent, status and rounded latency', () => {
    const { logging, lines } = capture();
    logging.completed(completed);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        service: 'unit',
        msg: 'request completed',
        requestId: 'r-1',
        req: { method: 'GET', url: '/v1/households/stats?region=Nairobi', userAgent: 'curl/8' },
        res: { statusCode: 200 },
        responseTime: 1.23,
      }),
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

  it('binds the request id to lines logged while serving, and still redacts them', () => {
    const { logging, lines } = capture();
    const logger = new PinoLogger({ pinoHttp: { level: 'silent' } });
    logging.serveWith('r-2', () => {
      logger.info({ pin: '12345', session: { text: '1*2*12345' } }, 'inside');
    });
    expect(lines).toEqual([
      expect.objectContaining({ requestId: 'r-2', msg: 'inside', pin: '[redacted]', session: { text: '[redacted]' } }),
    ]);
  });
});
