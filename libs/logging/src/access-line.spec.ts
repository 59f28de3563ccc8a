import fc from 'fast-check';
import { pino, stdTimeFunctions, type Logger as PinoInstance } from 'pino';
import {
  AccessLineWriter,
  type CompletedRequest,
  epochMillisText,
  jsonMilliseconds,
  jsonNumber,
  jsonString,
} from './access-line';
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

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The access line of `request` through pino's own path: the oracle of the bytes. */
function pinoLine(access: PinoInstance, request: CompletedRequest): void {
  const line = {
    requestId: request.requestId,
    req: {
      method: request.method,
      path: pathOf(request.url),
      client: request.client,
      clientId: request.clientId,
      userAgent: request.userAgent,
    },
    res: { statusCode: request.statusCode },
    responseTime: Math.round(request.responseTimeMs * 100) / 100,
  };
  if (request.statusCode >= 500) access.error(line, 'request errored');
  else access.info(line, 'request completed');
}

/** What the access logger wrote for the same request through pino's own path. */
function throughPino(level: string, request: CompletedRequest): string[] {
  const { access, lines } = loggersAt(level);
  pinoLine(access, request);
  return lines;
}

function direct(level: string, request: CompletedRequest): string[] {
  const { access, lines } = loggersAt(level);
  new AccessLineWriter(access).write(request, pathOf(request.url));
  return lines;
}

const typical: CompletedRequest = {
  requestId: '7f1c2b1e-6a55-4c5e-9f3a-0b7a1f6e9d10',
  method: 'GET',
  url: '/v1/households/stats',
  client: '203.0.113.7',
  clientId: undefined,
  userAgent: 'curl/8.5.0',
  statusCode: 200,
  responseTimeMs: 1.23,
};

describe('AccessLineWriter', () => {
  beforeEach(() => {
    jest.spyOn(Date, 'now').mockReturnValue(1_795_000_000_123);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each<[string, CompletedRequest]>([
    ['a typical request', typical],
    ['an authenticated client', { ...typical, clientId: 'rc_0123456789abcdef' }],
    ['no client address, user agent or client id', { ...typical, client: undefined, userAgent: undefined }],
    ['a 404', { ...typical, statusCode: 404 }],
    ['a 503, at error', { ...typical, statusCode: 503 }],
    ['quotes, backslashes and control characters', { ...typical, userAgent: 'a "b" \\c\n\t\u0001\u007f' }],
    [
      'non-ASCII, an emoji and a lone surrogate',
      { ...typical, userAgent: 'Überweisung ✓ 😀 \ud800 x', url: '/é' },
    ],
    ['a user agent far longer than a short string', { ...typical, userAgent: 'Mozilla/5.0 '.repeat(40) }],
    ['a latency that is not a finite number', { ...typical, responseTimeMs: Number.NaN }],
    ['an infinite latency', { ...typical, responseTimeMs: Number.POSITIVE_INFINITY }],
    [
      'a latency of several hours, rounded up to a whole millisecond',
      { ...typical, responseTimeMs: 12_345_678.996 },
    ],
    ['a latency that rounds to minus zero', { ...typical, responseTimeMs: -0.001 }],
    ['a negative latency', { ...typical, responseTimeMs: -3.456 }],
    ['a latency too large for hundredths to be exact', { ...typical, responseTimeMs: 1.5e13 + 0.07 }],
    ['a status outside 100-599', { ...typical, statusCode: 999 }],
    ['a status that is not an integer', { ...typical, statusCode: 200.5 }],
    [
      'a DEL and a quote in the request id, a query in the URL',
      { ...typical, requestId: 'a\u007f"b', url: '/x?y=1' },
    ],
    ['a caller id as long as the acceptable one may be', { ...typical, requestId: 'r'.repeat(128) }],
    [
      'a path of 48 characters and one of 49',
      { ...typical, url: '/'.padEnd(48, 'p'), userAgent: 'u'.repeat(49) },
    ],
    [
      'empty strings',
      { ...typical, requestId: '', method: '', url: '', client: '', clientId: '', userAgent: '' },
    ],
    [
      'a long user agent with a quote past the short-string length',
      { ...typical, userAgent: `${'a'.repeat(60)}"` },
    ],
    [
      'a lone low surrogate and a pair split across fields',
      { ...typical, client: '\udc00', clientId: '\ud83d' },
    ],
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

  it('writes the bytes pino writes, for any field values (property)', () => {
    // Printable ASCII mostly, so the quoted-as-is path is taken as often as the JSON.stringify one.
    const text = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc
        .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 60 })
        .map((codes) => String.fromCharCode(...codes)),
    );
    const request: fc.Arbitrary<CompletedRequest> = fc.record({
      requestId: fc.oneof(fc.uuid(), text),
      method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), text),
      url: text,
      client: fc.option(fc.oneof(fc.ipV4(), fc.ipV6(), text), { nil: undefined }),
      clientId: fc.option(text, { nil: undefined }),
      userAgent: fc.option(text, { nil: undefined }),
      statusCode: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.double()),
      responseTimeMs: fc.oneof(fc.double({ min: 0, max: 60_000 }), fc.double()),
    });
    fc.assert(
      fc.property(request, (fields) => {
        expect(direct('info', fields)).toEqual(throughPino('info', fields));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the bytes pino writes across milliseconds, levels and bindings changed after the first line', () => {
    const { access, lines } = loggersAt('info');
    const writer = new AccessLineWriter(access);
    const expected: string[] = [];
    const bothWays = (request: CompletedRequest): void => {
      writer.write(request, pathOf(request.url));
      const { length } = lines;
      pinoLine(access, request);
      expected.push(...lines.splice(length));
    };
    bothWays(typical);
    bothWays({ ...typical, statusCode: 502 });
    jest.spyOn(Date, 'now').mockReturnValue(1_795_000_000_124);
    bothWays(typical);
    bothWays({ ...typical, statusCode: 502 });
    access.setBindings({ region: 'eu' });
    bothWays(typical);
    access.level = 'error';
    bothWays(typical);
    bothWays({ ...typical, statusCode: 500 });
    access.level = 'info';
    bothWays(typical);
    expect(lines).toEqual(expected);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      [123, 123, 124, 124, 124, 124, 124].map((ms, index) =>
        expect.objectContaining({ time: 1_795_000_000_000 + ms, level: [1, 3, 5].includes(index) ? 50 : 30 }),
      ),
    );
  });

  it("writes the time as the logger's own time function does when it is not pino's default", () => {
    const lines: string[] = [];
    const access = pino(
      { name: 'unit', base: { service: 'unit' }, timestamp: stdTimeFunctions.isoTime },
      { write: (line: string) => void lines.push(line) },
    );
    new AccessLineWriter(access).write(typical, typical.url);
    pinoLine(access, typical);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(lines[1]);
    expect(lines[0]).toContain('"time":"2026-11-18T');
  });

  it('follows the logger level: nothing at warn, only the 5xx line at error', () => {
    expect(direct('warn', typical)).toEqual([]);
    expect(direct('warn', { ...typical, statusCode: 500 })).toHaveLength(1);
    expect(direct('fatal', { ...typical, statusCode: 500 })).toEqual([]);
    expect(direct('silent', typical)).toEqual([]);
  });
});

describe('the fast paths of the access line, against the general ones', () => {
  it('jsonString writes what JSON.stringify writes, for any string (property)', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc
        .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 80 })
        .map((codes) => String.fromCharCode(...codes)),
    );
    fc.assert(
      fc.property(anyString, (value) => {
        expect(jsonString(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 10_000 },
    );
  });

  it('jsonString escapes every character JSON.stringify escapes, alone and amid safe ones', () => {
    const different: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      const char = String.fromCharCode(code);
      const amid = `id-${char}-x`;
      if (jsonString(char) !== JSON.stringify(char) || jsonString(amid) !== JSON.stringify(amid))
        different.push(code);
    }
    expect(different).toEqual([]);
  });

  it('jsonMilliseconds writes what jsonNumber(Math.round(ms * 100) / 100) writes, for any number (property)', () => {
    const slow = (ms: number): string => jsonNumber(Math.round(ms * 100) / 100);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: 0, max: 100 }),
          fc.double({ min: 0, max: 1e7 }),
          fc.integer({ min: 0, max: 1e6 }).map((hundredths) => hundredths / 100),
          fc.double({ min: 9e12, max: 2e13 }),
          fc.double(),
        ),
        (ms) => {
          expect(jsonMilliseconds(ms)).toBe(slow(ms));
        },
      ),
      { numRuns: 20_000 },
    );
    for (const ms of [
      0,
      -0,
      0.004,
      0.005,
      0.015,
      1.005,
      9.995,
      99.995,
      1e13 - 0.01,
      1e13,
      1e13 + 0.5,
      Number.MAX_VALUE,
    ])
      expect(jsonMilliseconds(ms)).toBe(slow(ms));
  });

  it('epochMillisText writes what String writes, for any time in milliseconds and any other number (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1_700_000_000_000, max: 2_000_000_000_000 }),
          fc.maxSafeInteger(),
          fc.double(),
        ),
        (ms) => {
          expect(epochMillisText(ms)).toBe(String(ms));
        },
      ),
      { numRuns: 20_000 },
    );
    for (const ms of [
      0,
      -0,
      999_999,
      1e6,
      1_795_000_000_000,
      1_795_000_999_999,
      Number.MAX_SAFE_INTEGER,
      2 ** 53,
    ])
      expect(epochMillisText(ms)).toBe(String(ms));
  });
});
