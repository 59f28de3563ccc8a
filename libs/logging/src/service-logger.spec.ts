import { createServiceLoggers } from './logger-options';
import { RequestLogging } from './request-logging';
import { Logger, PinoLogger } from './service-logger';

interface Service {
  lines: Record<string, unknown>[];
  logging: RequestLogging;
  nest: Logger;
  pinoLogger(context?: string): PinoLogger;
}

function service(name: string): Service {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  };
  const loggers = createServiceLoggers({ service: name, level: 'info', pretty: false, destination });
  return {
    lines,
    logging: new RequestLogging(loggers),
    nest: new Logger(loggers.root),
    pinoLogger: (context) => new PinoLogger(loggers.root, context),
  };
}

describe('Logger (Nest LoggerService)', () => {
  it('writes the message with the context Nest passes last', () => {
    const { lines, nest } = service('unit');
    nest.log('listening on :3000', 'Bootstrap');
    nest.warn('slow', 'Db');
    expect(lines.map(({ level, context, msg }) => ({ level, context, msg }))).toEqual([
      { level: 30, context: 'Bootstrap', msg: 'listening on :3000' },
      { level: 40, context: 'Db', msg: 'slow' },
    ]);
  });

  it('writes an Error as err with its stack, and Nest handlers error(message, stack, context) the same way', () => {
    const { lines, nest } = service('unit');
    nest.error(new Error('boom'), 'Filter');
    nest.error('GET /x failed', 'Error: GET /x failed\n    at handler (x.ts:1:1)', 'ExceptionsHandler');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        context: 'Filter',
        err: expect.objectContaining({ message: 'boom' }),
      }),
      expect.objectContaining({
        level: 50,
        context: 'ExceptionsHandler',
        msg: 'GET /x failed',
        err: expect.objectContaining({ stack: 'Error: GET /x failed\n    at handler (x.ts:1:1)' }),
      }),
    ]);
  });

  it('merges an object message into the line and still redacts', () => {
    const { lines, nest } = service('unit');
    nest.log({ pin: '12345', step: 2 }, 'Ussd');
    expect(lines).toEqual([expect.objectContaining({ context: 'Ussd', step: 2, pin: '[redacted]' })]);
  });
});

describe('PinoLogger', () => {
  it('takes pino call shapes and adds its context', () => {
    const { lines, pinoLogger } = service('unit');
    const logger = pinoLogger('Households');
    logger.info({ households: 3 }, 'imported');
    logger.warn('plain');
    logger.error(new Error('down'), 'store failed');
    expect(lines.map(({ context, msg, households }) => ({ context, msg, households }))).toEqual([
      { context: 'Households', msg: 'imported', households: 3 },
      { context: 'Households', msg: 'plain', households: undefined },
      { context: 'Households', msg: 'store failed', households: undefined },
    ]);
    expect(lines[2]).toMatchObject({ err: { message: 'down' } });
  });

  it("writes to the request's logger while serving one, and each service's lines stay in that service", () => {
    const first = service('first');
    const second = service('second');
    first.logging.serveWith('r-1', () => {
      first.pinoLogger().info('inside first');
      first.nest.log('nest line', 'Ctx');
    });
    second.pinoLogger().info('outside any request');
    expect(first.lines.map(({ service: name, requestId, msg }) => ({ name, requestId, msg }))).toEqual([
      { name: 'first', requestId: 'r-1', msg: 'inside first' },
      { name: 'first', requestId: 'r-1', msg: 'nest line' },
    ]);
    expect(second.lines.map(({ service: name, requestId, msg }) => ({ name, requestId, msg }))).toEqual([
      { name: 'second', requestId: undefined, msg: 'outside any request' },
    ]);
  });
});
