import { Agent, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Field, Type } from 'protobufjs';
import { bootstrap } from '../src/bootstrap';
import { Route } from '../src/routes/route-table';
import { ServedRoutes } from '../src/routes/served-routes';
import { isTextMessage, jsonName } from '../src/transcoding/query-binder';
import { BASE_ENV, LocalChainNode, startNode } from './harness';

/**
 * Property-based fuzz over every route of the route table (so a new proto route is covered without touching this
 * file) and every query parameter its request message accepts, sent as raw HTTP/1.1 over a socket: what an attacker
 * or a careless client sends reaches the gateway as bytes, without a client library tidying the URL first.
 */

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// Upstream-caused 5xx are the only ones allowed, each with the message the README documents.
const UPSTREAM_5XX: ReadonlyArray<[number, number, RegExp]> = [
  [500, 2, /^the upstream node failed \(UNKNOWN\)$/],
  [500, 13, /^the upstream node failed \(INTERNAL\)$/],
  [500, 15, /^the upstream node failed \(DATA_LOSS\)$/],
  [501, 12, / is not (implemented|served) by the upstream node$/],
  [503, 14, /^the upstream node is unavailable$/],
  [504, 4, /^the upstream node did not answer within \d+ ms$/],
];

/** Every dotted key the query may carry for `type`, by proto name and by JSON name (`pagination.count_total`…). */
function queryKeys(type: Type, exclude: ReadonlySet<string>, prefix = '', depth = 0): string[] {
  const keys: string[] = [];
  for (const field of type.fieldsArray as Field[]) {
    const protoPath = `${prefix}${field.name}`;
    if (exclude.has(protoPath)) continue;
    const resolved = field.resolvedType;
    const nested = resolved instanceof Type && !isTextMessage(resolved.fullName) && !field.map;
    const names = [...new Set([field.name, jsonName(field.name)])];
    for (const name of names) {
      if (nested && depth < 3) keys.push(...queryKeys(resolved, exclude, `${prefix}${name}.`, depth + 1));
      else keys.push(`${prefix}${name}`);
    }
    // The message as a whole, which the URL cannot set: a 400 the fuzz should meet too.
    if (nested) keys.push(protoPath);
  }
  return [...new Set(keys)];
}

// Values that break parsers: NUL, emoji, lone surrogates are left to fc.string's full range; the rest by hand.
const NASTY_VALUES = [
  '',
  '\u0000',
  'a\u0000b',
  '😀',
  '👩‍👩‍👧',
  'true',
  'T',
  'yes',
  '0',
  '-1',
  '1.5',
  '1e3',
  'NaN',
  '-Infinity',
  '2147483648',
  '18446744073709551616',
  '9'.repeat(40),
  'a$b',
  '====',
  'YQ',
  'YQ==',
  'YQ===',
  '+/+/',
  '-_-_',
  'abcde',
  '2024-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-99-99T99:99:99Z',
  '1.5s',
  '-9223372036854775809s',
  'did:ixo:entity:7690f6fdf246e0e548befdb27f53c6b8',
  '__proto__',
  '{"a":1}',
  '../../etc/passwd',
];
const NASTY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'pagination.__proto__',
  '__proto__.limit',
  'pagination',
  'pagination.key.x',
  '',
  '.',
  'a..b',
  '\u0000',
  '😀',
  'x'.repeat(300),
];
// Characters that are legal in a request line but mean something to a URL or query parser.
const RAW_ALPHABET = [...'%%%zZ09aA+&=;:@!$\'()*,~._-/\\[]{}|^`"<>'];

const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_VALUES) },
  { weight: 2, arbitrary: fc.nat({ max: 200 }).map(String) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
  { weight: 1, arbitrary: fc.base64String({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((length) => 'a'.repeat(length)) },
);
const rawText = fc.array(fc.constantFrom(...RAW_ALPHABET), { maxLength: 12 }).map((chars) => chars.join(''));

const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD, where encodeURIComponent throws). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** How one piece goes on the wire: percent-encoded, or raw from the tricky alphabet (bad escapes included). */
function onWire(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 4, arbitrary: text.map(percentEncode) }, { weight: 1, arbitrary: rawText });
}

function pathFor(route: Route, values: string[]): string {
  let next = 0;
  const parts = route.template.segments.map((segment) =>
    segment.kind === 'literal' ? segment.value : (values[next++] ?? 'x'),
  );
  return `/${parts.join('/')}${route.template.verb ? `:${route.template.verb}` : ''}`;
}

function rawGet(agent: Agent, port: number, path: string, requestId: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'GET', agent, headers: { 'x-request-id': requestId } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function checkAnswer(answer: RawAnswer, what: string): void {
  const context = `${what} → ${answer.status} ${answer.body.slice(0, 300)}`;
  expect({ context, type: answer.headers['content-type'] }).toEqual({
    context,
    type: 'application/json; charset=utf-8',
  });
  const body: unknown = JSON.parse(answer.body);
  expect({ context, requestId: typeof answer.headers['x-request-id'] }).toEqual({
    context,
    requestId: 'string',
  });
  if (answer.status === 200) {
    expect({ context, isObject: typeof body === 'object' && body !== null }).toEqual({
      context,
      isObject: true,
    });
    return;
  }
  const error = body as { code: unknown; message: unknown; details: unknown };
  expect({ context, keys: Object.keys(error) }).toEqual({ context, keys: ['code', 'message', 'details'] });
  expect({ context, details: error.details, code: Number.isInteger(error.code) }).toEqual({
    context,
    details: [],
    code: true,
  });
  expect({ context, message: typeof error.message }).toEqual({ context, message: 'string' });
  if (answer.status >= 500) {
    const allowed = UPSTREAM_5XX.some(
      ([status, code, message]) =>
        status === answer.status && code === error.code && message.test(String(error.message)),
    );
    expect({ context, upstreamCaused: allowed }).toEqual({ context, upstreamCaused: true });
  }
}

// A failure bound for a few hundred real requests on a loaded machine, not a speed target.
jest.setTimeout(60_000);

describe('fuzz: every route and query parameter, raw HTTP over a socket', () => {
  let node: LocalChainNode;
  let close: () => Promise<void>;
  let port: number;
  /** A second gateway with the default QUERY_STRICT=false; the one above is strict so its 400 stays fuzzed too. */
  let lenientPort: number;
  let routes: readonly Route[];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let requestNumber = 0;

  const get = (path: string): Promise<RawAnswer> => {
    requestNumber += 1;
    return rawGet(agent, port, path, `fuzz-${requestNumber}`);
  };

  beforeAll(async () => {
    node = await startNode();
    const { app } = await bootstrap({ ...BASE_ENV, GRPC_UPSTREAM: node.address, QUERY_STRICT: 'true' });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    routes = app.get(ServedRoutes).current.table.routes;
    const lenient = (await bootstrap({ ...BASE_ENV, GRPC_UPSTREAM: node.address })).app;
    await lenient.listen(0, '127.0.0.1');
    lenientPort = (lenient.getHttpServer().address() as AddressInfo).port;
    close = async () => {
      await app.close();
      await lenient.close();
    };
  });

  afterAll(async () => {
    agent.destroy();
    await close();
    await node.stop();
  });

  it('covers every route of the table', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it('answers JSON for 200 and {code, message, details} otherwise, never a 5xx the upstream did not cause', async () => {
    const request = fc
      .constantFrom(...routes)
      .chain((route) => {
        const pathFields = new Set(route.template.variables.map((variable) => variable.fieldPath));
        const keys = queryKeys(route.requestType, pathFields);
        const key = fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...(keys.length > 0 ? keys : ['pagination.limit'])) },
          { weight: 1, arbitrary: fc.constantFrom(...NASTY_KEYS) },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        );
        const pair = fc.tuple(onWire(key), onWire(value), fc.boolean());
        return fc.record({
          route: fc.constant(route),
          pathValues: fc.array(onWire(value), {
            minLength: route.template.variables.length,
            maxLength: route.template.variables.length,
          }),
          // Few distinct keys, so repeated keys are common.
          query: fc.array(pair, { maxLength: 5 }),
        });
      })
      .map(({ route, pathValues, query }) => {
        const path = pathFor(route, pathValues);
        const search = query.map(([key, text, bare]) => (bare ? key : `${key}=${text}`)).join('&');
        return search === '' ? path : `${path}?${search}`;
      });
    await fc.assert(
      fc.asyncProperty(request, async (url) => {
        checkAnswer(await get(url), `GET ${url}`);
      }),
      { numRuns: 400 },
    );
  });

  const parameterless = (): Route[] => routes.filter((route) => route.template.variables.length === 0);

  /** Query keys whose first part names no field of any parameterless route's request. */
  const unknownKeys = (): fc.Arbitrary<string> => {
    const knownFirstSegments = new Set(
      parameterless().flatMap((route) =>
        (route.requestType.fieldsArray as Field[]).flatMap((field) => [field.name, jsonName(field.name)]),
      ),
    );
    return fc
      .oneof(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', '_', 'cache-buster'),
        fc.string({ minLength: 1 }),
      )
      .filter((key) => !knownFirstSegments.has(key.split('.')[0]!));
  };

  it('ignores a query key that names no field by default, as grpc-gateway does, Object.prototype names included', async () => {
    const baselines = new Map<string, RawAnswer>();
    for (const route of parameterless()) {
      baselines.set(route.pattern, await rawGet(agent, lenientPort, route.pattern, 'fuzz-baseline'));
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...parameterless()), unknownKeys(), async (route, key) => {
        requestNumber += 1;
        const answer = await rawGet(
          agent,
          lenientPort,
          `${route.pattern}?${percentEncode(key)}=x`,
          `fuzz-${requestNumber}`,
        );
        const baseline = baselines.get(route.pattern)!;
        expect({ key, status: answer.status, body: answer.body }).toEqual({
          key,
          status: baseline.status,
          body: baseline.body,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('with QUERY_STRICT=true refuses a query key that names no field, Object.prototype names included', async () => {
    const served = parameterless();
    const unknownKey = unknownKeys();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...served), unknownKey, async (route, key) => {
        const answer = await get(`${route.pattern}?${percentEncode(key)}=x`);
        checkAnswer(answer, `GET ${route.pattern}?${key}=x`);
        expect({ status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({
          status: 400,
          body: { code: 3, message: `unknown query parameter ${key}`, details: [] },
        });
      }),
      { numRuns: 150 },
    );
  });
});
