import fc from 'fast-check';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TestDatabase } from '@dmrv/testing';
import {
  BLOCKS,
  DELIVERIES,
  DEVICES,
  EVENTS,
  HOUSEHOLDS,
  PROJECTS,
  PURCHASES,
  RegistryFixture,
} from './fixtures/registry-fixture';
import { get, openApiValidators, startRegistryStack, stopRegistryStack } from './registry-test-kit';

interface ParameterObject {
  name: string;
  in: string;
  schema?: { type?: string; format?: string; pattern?: string; minimum?: number; maximum?: number };
}

interface OperationObject {
  operationId: string;
  parameters?: ParameterObject[];
  responses: Record<string, { content?: { 'application/json'?: { schema: object } } }>;
}

interface OpenApiDocument {
  servers: Array<{ url: string }>;
  paths: Record<string, { get?: OperationObject }>;
  components: { schemas: Record<string, unknown> };
}

/** Every value the fixture knows, so that a share of the generated requests select something and answer 200. */
const FIXTURE_VALUES = [
  ...PROJECTS.map((p) => p.id),
  ...HOUSEHOLDS.flatMap((h) => [h.id, h.region]),
  ...DEVICES.map((d) => d.id),
  ...PURCHASES.slice(0, 5).map((p) => p.id),
  ...DELIVERIES.map((d) => d.id),
  ...BLOCKS.map((b) => b.id),
  ...EVENTS.flatMap((e) => [e.sender, e.recipient]).filter((v): v is string => v !== undefined),
  'LPG + Biomass',
  'charcoal',
];

/** Text an attacker or a broken client sends: control characters, lone surrogates, SQL, prototype names, huge. */
const HOSTILE_TEXT = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'East\u0000Region',
    '\ud800',
    '\udfff\ud800',
    "' OR 1=1 --",
    '%',
    '%%',
    '__proto__',
    'constructor',
    '-1',
    '1e309',
    'NaN',
    '0000-01-01',
    '9999-12-31',
    '0000-01-01T00:00:00Z',
    '2024-02-30',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:00:00+99:99',
    ' ',
    '',
    'x'.repeat(1200),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
);

const pad = (value: number, width: number): string => String(value).padStart(width, '0');
const anyYear = fc.integer({ min: 0, max: 9999 });
/** Date-shaped text: mostly real days, and days that only look real (year 0, February 30, month 13). */
const dateText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .date({ min: new Date('2023-06-01'), max: new Date('2024-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constant(0), anyYear),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
      )
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  },
);
const zone = fc.constantFrom(
  'Z',
  '+00:00',
  '-05:30',
  '+14:00',
  '-15:59',
  '+16:00',
  '+23:59',
  '+24:00',
  '-99:00',
  '+01:60',
  '',
);
const dateTimeText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .date({ min: new Date('2023-01-01'), max: new Date('2025-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        dateText,
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        zone,
      )
      .map(([date, h, m, sec, z]) => `${date}T${pad(h, 2)}:${pad(m, 2)}:${pad(sec, 2)}${z}`),
  },
);
const periodYear = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 2023, max: 2025 }) },
  { weight: 1, arbitrary: anyYear },
);
const periodText = fc.oneof(
  periodYear.map((y) => pad(y, 4)),
  fc.tuple(periodYear, fc.integer({ min: 0, max: 5 })).map(([y, q]) => `${pad(y, 4)}-Q${q}`),
  fc.tuple(periodYear, fc.integer({ min: 0, max: 13 })).map(([y, m]) => `${pad(y, 4)}-${pad(m, 2)}`),
);
/** Cursors that decode (base64url JSON arrays) but may hold anything: what key validation must stand up to. */
const forgedCursor = fc
  .array(
    fc.oneof(
      HOSTILE_TEXT,
      dateText,
      fc.constantFrom(...FIXTURE_VALUES),
      fc.bigInt({ min: -(10n ** 19n), max: 10n ** 19n }).map(String),
      fc.integer(),
      fc.double(),
      fc.constant(null),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((key) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url'));

/** Values a client means (fixture ids, real days, periods, cursors the service handed out) and values it should not send. */
function valuesFor(parameter: ParameterObject, cursors: string[]): fc.Arbitrary<string> {
  const schema = parameter.schema ?? {};
  let meant: fc.Arbitrary<string> = fc.constantFrom(...FIXTURE_VALUES);
  if (schema.type === 'integer')
    meant = fc.integer({ min: schema.minimum ?? 1, max: schema.maximum ?? 1000 }).map(String);
  else if (schema.format === 'date') meant = dateText;
  else if (schema.format === 'date-time') meant = dateTimeText;
  else if (schema.pattern !== undefined || /period/.test(parameter.name)) meant = periodText;
  else if (parameter.name === 'cursor') meant = fc.oneof(fc.constantFrom(...cursors), forgedCursor);
  const unmeant = schema.type === 'integer' ? fc.oneof(fc.integer().map(String), HOSTILE_TEXT) : HOSTILE_TEXT;
  return fc.oneof({ weight: 4, arbitrary: meant }, { weight: 1, arbitrary: unmeant });
}

/** Present with the given probability, else null. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, probability: number): fc.Arbitrary<T | null> {
  const weight = Math.round(probability * 100);
  return fc.oneof({ weight: 100 - weight, arbitrary: fc.constant(null) }, { weight, arbitrary });
}

/** Percent-encodes every UTF-8 byte (a lone surrogate becomes U+FFFD, as a browser would send it). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** Query text sent as is, unencoded: broken percent escapes and separators the parser must survive. */
const RAW_QUERY_FRAGMENT = fc.constantFrom(
  '%',
  '%zz',
  '%C3%28',
  '%ED%A0%80',
  '%FF',
  '%00',
  '&&',
  '=',
  '==x',
  '[]',
  'a[b]=c',
  ';',
);

// Every query parameter of every operation of the served OpenAPI document (a new endpoint is covered as soon as it
// is documented), with valid, borderline and hostile values, against the real service and PostgreSQL: never a 5xx,
// a status the operation documents, a 200 body valid against its schema, any other body exactly { message: string }.
describe('registry-api fuzz over every query parameter of the OpenAPI document', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;
  let document: OpenApiDocument;
  let validators: ReturnType<typeof openApiValidators>;
  /** A next_cursor of every collection, so that real cursors meet other collections and other filters. */
  const cursors: string[] = [];

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_fuzz', {
      RATE_LIMIT_PER_MINUTE: '0',
    }));
    document = (await get(app, '/v1/openapi.json')).json<OpenApiDocument>();
    validators = openApiValidators(document);
    for (const path of Object.keys(document.paths).filter((p) => p.endsWith('/list'))) {
      const page = (await get(app, `${document.servers[0]!.url}${path}?limit=1`, auth)).json<{
        page_info: { next_cursor: string | null };
      }>();
      if (page.page_info.next_cursor !== null) cursors.push(page.page_info.next_cursor);
    }
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('covers every GET operation with query parameters', () => {
    const withParameters = Object.values(document.paths).filter((item) =>
      (item.get?.parameters ?? []).some((p) => p.in === 'query'),
    );
    expect(withParameters.length).toBeGreaterThanOrEqual(20);
  });

  it('never answers 5xx and always answers in the documented shape', async () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      item.get ? [{ path, operation: item.get }] : [],
    );
    const request = fc.constantFrom(...operations).chain(({ path, operation }) => {
      const parameters = (operation.parameters ?? []).filter((p) => p.in === 'query');
      const pairs = parameters.map((parameter) =>
        sometimes(
          valuesFor(parameter, cursors).map((value) => [parameter.name, value] as const),
          0.4,
        ),
      );
      return fc.record({
        path: fc.constant(path),
        pairs: fc.tuple(...pairs),
        repeated: sometimes(fc.constantFrom(...parameters.map((p) => p.name), 'limit'), 0.05),
        unknown: sometimes(
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'toString', 'foo'),
            fc.string({ maxLength: 8 }),
          ),
          0.05,
        ),
        raw: sometimes(RAW_QUERY_FRAGMENT, 0.05),
      });
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ path, pairs, repeated, unknown, raw }) => {
        const operation = document.paths[path]!.get!;
        const parts = pairs.flatMap((pair) => (pair ? [`${encode(pair[0])}=${encode(pair[1])}`] : []));
        if (repeated !== null) parts.push(`${encode(repeated)}=1`, `${encode(repeated)}=2`);
        if (unknown !== null) parts.push(`${encode(unknown)}=x`);
        if (raw !== null) parts.push(raw);
        const url = `${document.servers[0]!.url}${path}${parts.length > 0 ? `?${parts.join('&')}` : ''}`;
        const response = await get(app, url, auth);
        const body: unknown = response.body === '' ? undefined : JSON.parse(response.body);
        const seen = { url, status: response.statusCode, body };
        expect(seen.status).toBeLessThan(500);
        expect(Object.keys(operation.responses)).toContain(String(seen.status));
        if (seen.status === 200) {
          const schema = operation.responses['200']!.content?.['application/json']?.schema;
          expect(schema).toBeDefined();
          const validate = validators.schema(schema!);
          expect({ ...seen, valid: validate(body), errors: validate.errors ?? null }).toEqual({
            ...seen,
            valid: true,
            errors: null,
          });
        } else {
          const validate = validators.named('Error');
          expect({ ...seen, valid: validate(body), errors: validate.errors ?? null }).toEqual({
            ...seen,
            valid: true,
            errors: null,
          });
          expect(seen).toEqual({ ...seen, body: { message: expect.any(String) as string } });
        }
      }),
      { numRuns: 600 },
    );
    // A failure bound for a loaded machine, not a speed claim: 600 requests take about a second here alone.
  }, 60_000);
});
