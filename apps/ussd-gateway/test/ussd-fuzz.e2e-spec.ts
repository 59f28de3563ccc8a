import fc from 'fast-check';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import { Backing, createBacking, Handset, OPERATOR_TOKEN, startApp } from './ussd-test-kit';

jest.setTimeout(120_000);

let backing: Backing;
let app: NestFastifyApplication;

beforeAll(async () => {
  backing = await createBacking('ussd-fuzz');
  ({ app } = await startApp(backing.env({ RATE_LIMIT_PER_IP: '1000000' })));
});

afterAll(async () => {
  await app?.close();
  await backing?.cleanup();
});

/** Strings an attacker or a broken client would send: control characters, emoji, prototype keys, very long ones. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 150, maxLength: 600 }),
  fc.constantFrom(
    '\u0000',
    '1\u0000',
    '😀',
    '🔥'.repeat(101),
    '__proto__',
    'constructor',
    'prototype',
    '',
    ' ',
    '*',
    '**',
    '#',
    '%00',
    '*384#',
    '+254700000001',
  ),
);
const anyValue = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nasty, { maxLength: 3 }),
  fc.dictionary(nasty, nasty, { maxKeys: 3 }),
);
/** Inputs that walk deep into the menus (log-in, account creation) mixed with nonsense. */
const menuText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '1',
        '2',
        '3',
        '0',
        '00',
        '98',
        '*',
        '9',
        '',
        'C0A1B2C3D',
        'c0a1b2c3d',
        '24680',
        '12345',
        'Jane Doe',
        'a@b.co',
      ),
      nasty,
    ),
    {
      maxLength: 8,
    },
  )
  .map((inputs) => inputs.join('*'));
const sessionRequestField = {
  sessionId: fc.oneof(
    fc.string({ minLength: 1, maxLength: 30 }).map((id) => `fuzz-${id}`),
    anyValue,
  ),
  serviceCode: fc.oneof(fc.constantFrom('*384#', '*384*1#'), anyValue),
  phoneNumber: fc.oneof(fc.constantFrom('+254700000001', '+254700000002', '+14155550100'), anyValue),
  text: fc.oneof(menuText, anyValue),
};
const prototypeKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString');
const extraKey = fc.oneof(prototypeKeys, nasty);

/** A session request as key/value entries: any subset of the fields, extra keys, repeated keys. */
const entries = fc
  .tuple(
    fc.record(sessionRequestField, { requiredKeys: [] }),
    fc.array(fc.tuple(extraKey, anyValue), { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([fields, extras, extrasFirst]) => {
    const own = Object.entries(fields);
    return extrasFirst ? [...extras, ...own] : [...own, ...extras];
  });

/** JSON text written by hand, so that `__proto__` and repeated keys really are in it. */
const jsonBody = entries.map(
  (pairs) =>
    `{${pairs.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`,
);
const formBody = entries.map((pairs) =>
  pairs
    .map(
      ([key, value]) =>
        `${encodeURIComponent(key)}=${encodeURIComponent(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`,
    )
    .join('&'),
);
const queryString = fc
  .array(fc.tuple(extraKey, nasty), { maxLength: 3 })
  .map((pairs) =>
    pairs.length === 0
      ? ''
      : `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`,
  );
/** A path segment: percent-encoded text, or raw bytes that are not valid percent-encoding. */
const pathSegment = fc.oneof(
  nasty.map((text) => encodeURIComponent(text)),
  fc.constantFrom(
    '%',
    '%E0%A4%A',
    '%ZZ',
    '%00',
    '..',
    '%2e%2e',
    '%2F',
    '__proto__',
    'constructor',
    '%F0%9F%98',
  ),
);

function expectUssdText(response: LightMyRequestResponse): void {
  // The per-IP limit keeps the spec's 429, in words like every other answer.
  expect([200, 429]).toContain(response.statusCode);
  expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(response.body).toMatch(/^(CON|END) \S/);
}

function expectMessageBody(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body: unknown = response.json();
  expect(body).toEqual({ message: expect.any(String) });
}

const FUZZ = { numRuns: 150 };

describe('POST /api/ussd, fuzzed', () => {
  it('answers any JSON body with CON/END text, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(jsonBody, queryString, async (payload, query) => {
        expectUssdText(
          await app.inject({
            method: 'POST',
            url: `/api/ussd${query}`,
            payload,
            headers: { 'content-type': 'application/json' },
          }),
        );
      }),
      FUZZ,
    );
  });

  it('answers any form body with CON/END text, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(formBody, queryString, async (payload, query) => {
        expectUssdText(
          await app.inject({
            method: 'POST',
            url: `/api/ussd${query}`,
            payload,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        );
      }),
      FUZZ,
    );
  });

  it('answers any sequence of hops of one session with CON/END text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(menuText, { minLength: 1, maxLength: 6 }), async (texts) => {
        const handset = new Handset(app);
        for (const text of texts) {
          expectUssdText(
            await app.inject({
              method: 'POST',
              url: '/api/ussd',
              payload: {
                sessionId: handset.sessionId,
                serviceCode: '*384#',
                phoneNumber: handset.phoneNumber,
                text,
              },
            }),
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('operator endpoints, fuzzed', () => {
  /** `token: null` sends no token header at all. */
  const get = (url: string, token: string | null = OPERATOR_TOKEN) =>
    app.inject({ method: 'GET', url, headers: token === null ? {} : { 'x-operator-token': token } });

  it('answer any session id and query with the debug record or {message}, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(pathSegment, queryString, async (segment, query) => {
        const response = await get(`/api/ussd/debug/${segment}${query}`);
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode === 200)
          expect(response.json()).toMatchObject({
            sessionId: expect.any(String),
            activeSessions: expect.any(Array),
          });
        else expectMessageBody(response);
      }),
      FUZZ,
    );
  });

  it('answer the session list with any query, and refuse any token but the right one with {message}', async () => {
    await fc.assert(
      fc.asyncProperty(
        queryString,
        fc.option(nasty.filter((token) => token !== OPERATOR_TOKEN)),
        async (query, token) => {
          const list = await get(`/api/ussd/sessions${query}`);
          expect(list.statusCode).toBe(200);
          expect(list.json()).toEqual({ activeSessions: expect.any(Array), count: expect.any(Number) });
          // Header values must be printable; the others never reach the service (the HTTP client refuses them).
          if (token !== null && !/^[\t\x20-\x7e\x80-\xff]*$/.test(token)) return;
          const refused = await get(`/api/ussd/sessions${query}`, token);
          expect(refused.statusCode).toBe(401);
          expectMessageBody(refused);
        },
      ),
      FUZZ,
    );
  });
});

describe('query parameters', () => {
  const endpoints: Array<[string, string, string]> = [
    ['GET', '/', ''],
    ['GET', '/health', ''],
    ['GET', '/api/ussd/sessions', ''],
    ['GET', '/api/ussd/debug/never-started', ''],
    [
      'POST',
      '/api/ussd',
      JSON.stringify({
        sessionId: 'query-check',
        serviceCode: '*384#',
        phoneNumber: '+254700000003',
        text: '',
      }),
    ],
  ];

  it.each(endpoints)(
    '%s %s: ?__proto__=x and ?constructor=x are treated as any unknown parameter (ignored)',
    async (method, path, payload) => {
      const call = (query: string) =>
        app.inject({
          method: method as 'GET' | 'POST',
          url: `${path}${query}`,
          headers: { 'x-operator-token': OPERATOR_TOKEN, 'content-type': 'application/json' },
          ...(payload ? { payload } : {}),
        });
      const shape = (response: LightMyRequestResponse) => ({
        status: response.statusCode,
        body: String(response.headers['content-type']).startsWith('application/json')
          ? Object.keys(response.json() as object).sort()
          : response.body,
      });
      const plain = shape(await call(''));
      for (const query of [
        '?foo=bar',
        '?__proto__=x',
        '?constructor=x',
        '?__proto__[polluted]=1',
        '?constructor[prototype][polluted]=1',
      ]) {
        expect(shape(await call(query))).toEqual(plain);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});
