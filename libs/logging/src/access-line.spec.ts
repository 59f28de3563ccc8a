import { AccessLineFields, AccessLineWriter } from './access-line';
import { createServiceLoggers } from './logger-options';

function loggersAt(level: string): {
  access: ReturnType<typeof createServiceLoggers>['access'];
  lines: string[];
} {
  const lines: string[] = [];
  const destination = { write: (line: string) => void lines.push(line) };
  const { access } = createServiceLoggers({ service: 'unit', level, pretty: false, destination });
  return { access, lines };
}

/** What the access logger wrote for the same fields through pino's own path (the oracle of the bytes). */
function throughPino(level: string, fields: AccessLineFields): string[] {
  const { access, lines } = loggersAt(level);
  const line = {
    requestId: fields.requestId,
    req: {
      method: fields.method,
      path: fields.path,
      client: fields.client,
      clientId: fields.clientId,
      userAgent: fields.userAgent,
    },
    res: { statusCode: fields.statusCode },
    responseTime: fields.responseTime,
  };
  if (fields.statusCode >= 500) access.error(line, 'request errored');
  else access.info(line, 'request completed');
  return lines;
}

function direct(level: string, fields: AccessLineFields): string[] {
  const { access, lines } = loggersAt(level);
  new AccessLineWriter(access).write(fields);
  return lines;
}

const typical: AccessLineFields = {
  requestId: '7f1c2b1e-6a55-4c5e-9f3a-0b7a1f6e9d10',
  method: 'GET',
  path: '/v1/households/stats',
  client: '203.0.113.7',
  clientId: undefined,
  userAgent: 'curl/8.5.0',
  statusCode: 200,
  responseTime: 1.23,
};

describe('AccessLineWriter', () => {
  beforeEach(() => {
    jest.spyOn(Date, 'now').mockReturnValue(1_795_000_000_123);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each<[string, AccessLineFields]>([
    ['a typical request', typical],
    ['an authenticated client', { ...typical, clientId: 'rc_0123456789abcdef' }],
    ['no client address, user agent or client id', { ...typical, client: undefined, userAgent: undefined }],
    ['a 404', { ...typical, statusCode: 404 }],
    ['a 503, at error', { ...typical, statusCode: 503 }],
    ['quotes, backslashes and control characters', { ...typical, userAgent: 'a "b" \\c\n\t\u0001\u007f' }],
    [
      'non-ASCII, an emoji and a lone surrogate',
      { ...typical, userAgent: 'Überweisung ✓ 😀 \ud800 x', path: '/é' },
    ],
    ['a user agent far longer than a short string', { ...typical, userAgent: 'Mozilla/5.0 '.repeat(40) }],
    ['a latency that is not a finite number', { ...typical, responseTime: Number.NaN }],
    ['an infinite latency', { ...typical, responseTime: Number.POSITIVE_INFINITY }],
  ])('writes the bytes pino writes: %s', (_label, fields) => {
    const expected = throughPino('info', fields);
    expect(expected).toHaveLength(1);
    expect(direct('info', fields)).toEqual(expected);
  });

  it('writes a valid JSON line with every field', () => {
    const [line] = direct('info', { ...typical, clientId: 'rc_1', userAgent: 'x "y"\n' });
    expect(line!.endsWith('\n')).toBe(true);
    expect(JSON.parse(line!)).toEqual({
      level: 30,
      time: 1_795_000_000_123,
      service: 'unit',
      name: 'unit',
      requestId: typical.requestId,
      req: {
        method: 'GET',
        path: '/v1/households/stats',
        client: '203.0.113.7',
        clientId: 'rc_1',
        userAgent: 'x "y"\n',
      },
      res: { statusCode: 200 },
      responseTime: 1.23,
      msg: 'request completed',
    });
  });

  it('follows the logger level: nothing at warn, only the 5xx line at error', () => {
    expect(direct('warn', typical)).toEqual([]);
    expect(direct('warn', { ...typical, statusCode: 500 })).toHaveLength(1);
    expect(direct('fatal', { ...typical, statusCode: 500 })).toEqual([]);
    expect(direct('silent', typical)).toEqual([]);
  });
});
