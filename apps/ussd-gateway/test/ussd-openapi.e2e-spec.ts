import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_CODE_MAX, SESSION_ID_MAX, TEXT_MAX } from '../src/contract/ussd-fields';
import {
  INVALID_INPUT_REPLY,
  IP_RATE_LIMITED_REPLY,
  PHONE_RATE_LIMITED_REPLY,
  SESSION_RATE_LIMITED_REPLY,
  UNAVAILABLE_REPLY,
} from '../src/ussd-error.renderer';
import { OPERATOR_TOKEN, SERVICE_CODE, useTestStack } from './ussd-test-kit';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a JSON document

/** The hand-written document the service served before it was generated (2026-11-29). */
const BEFORE = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'operator-openapi.2026-11-29.json'), 'utf8'),
) as Json;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Words for people, not what a client sends or gets. */
const PROSE = new Set(['description', 'summary', 'example', 'examples', 'title', 'tags', 'operationId']);

/** `value` with every `$ref` replaced by what it points at, and without prose. */
function resolved(document: Json, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(document, item));
  if (!value || typeof value !== 'object') return value;
  const ref = (value as Json).$ref as string | undefined;
  if (ref !== undefined) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key) => node[key] as Json, document);
    return resolved(document, target);
  }
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !PROSE.has(key))
      .map(([key, item]) => [key, resolved(document, item)]),
  );
}

/** What an operation means to a client: parameters by place and name, body, answers by status, credentials. */
function meaning(document: Json, path: string, method: string): Json {
  const operation = document.paths[path][method] as Json;
  const parameters = Object.fromEntries(
    ((operation.parameters ?? []) as Json[]).map((parameter) => [
      `${parameter.in} ${parameter.name}`,
      resolved(document, { required: parameter.required ?? false, schema: parameter.schema }),
    ]),
  );
  return {
    parameters,
    requestBody: resolved(document, operation.requestBody ?? null),
    responses: resolved(document, operation.responses),
    security: operation.security ?? document.security,
  };
}

const operationsOf = (document: Json): string[] =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => (item as Json)[method]).map((method) => `${method.toUpperCase()} ${path}`),
  );

describe('the USSD OpenAPI document, generated from the controllers and DTOs', () => {
  const stack = useTestStack('ussd-openapi');
  let document: Json;

  beforeAll(async () => {
    const served = await stack.app.inject({
      method: 'GET',
      url: '/api/ussd/openapi.json',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(served.statusCode).toBe(200);
    document = served.json();
  });

  it('describes every operation of the hand-written document as it was, in meaning', () => {
    const before = operationsOf(BEFORE);
    expect(before).toHaveLength(4);
    for (const operation of before) {
      const [method, path] = operation.split(' ') as [string, string];
      expect({ operation, ...meaning(document, path, method.toLowerCase()) }).toEqual({
        operation,
        ...meaning(BEFORE, path, method.toLowerCase()),
      });
    }
  });

  it('adds the hop, the session endpoints and the session events, and nothing else', () => {
    expect(document).toMatchObject({ openapi: '3.0.3', info: { title: 'USSD gateway API' } });
    const ids = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((method) => (item as Json)[method]).map(
        (method) => `${method.toUpperCase()} ${path} ${(item as Json)[method].operationId}`,
      ),
    );
    expect(ids.sort()).toEqual([
      'GET /api/ussd/debug/{sessionId} debugSession',
      'GET /api/ussd/events listSessionEvents',
      'GET /api/ussd/orders listOrders',
      'GET /api/ussd/sessions listSessions',
      'GET /api/ussd/tickets listTickets',
      'PATCH /api/ussd/orders/{orderNumber} updateOrderStatus',
      'PATCH /api/ussd/tickets/{ticketNumber} updateTicketStatus',
      'POST /api/ussd ussdHop',
      'POST /api/ussd/events receiveSessionEvent',
    ]);
  });

  it('names every field the operator endpoints answer with', async () => {
    const schemas = document.components.schemas as Record<string, { required?: string[] }>;
    const get = async (url: string): Promise<Json> =>
      (
        await stack.app.inject({ method: 'GET', url, headers: { 'x-operator-token': OPERATOR_TOKEN } })
      ).json();
    const sessions = await get('/api/ussd/sessions');
    expect(Object.keys(sessions).sort()).toEqual([...schemas.SessionList!.required!].sort());
    expect([...schemas.OrderPage!.required!].sort()).toEqual(['items', 'nextCursor']);
    expect([...schemas.SessionEventPage!.required!].sort()).toEqual(
      Object.keys(await get('/api/ussd/events')).sort(),
    );
  });

  describe('POST /api/ussd, described by hand (a Fastify route, not a controller)', () => {
    const hop = (): Json => document.paths['/api/ussd'].post;

    it('takes the four fields as a form or JSON, with the limits the hop checks', () => {
      expect(Object.keys(hop().requestBody.content).sort()).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
      const form = resolved(document, hop().requestBody.content['application/x-www-form-urlencoded'].schema);
      expect(form).toEqual({
        type: 'object',
        required: ['sessionId', 'serviceCode', 'phoneNumber', 'text'],
        properties: {
          sessionId: { type: 'string', minLength: 1, maxLength: SESSION_ID_MAX },
          serviceCode: {
            type: 'string',
            pattern: '^\\*\\d{1,6}(\\*\\d{1,6})*#$',
            maxLength: SERVICE_CODE_MAX,
          },
          phoneNumber: { type: 'string', pattern: '^\\+[1-9]\\d{6,14}$', maxLength: 16 },
          text: { type: 'string', maxLength: TEXT_MAX },
        },
      });
      expect(hop().security).toEqual([]);
    });

    it('answers text/plain: 200 with CON/END (refusals as END texts), 429 past the per-IP limit', () => {
      const { responses } = hop();
      expect(Object.keys(responses).sort()).toEqual(['200', '429']);
      expect(responses['200'].content['text/plain'].schema).toEqual({
        type: 'string',
        pattern: '^(CON|END) ',
      });
      expect(
        Object.values(responses['200'].content['text/plain'].examples as Json).map((e) => e.value),
      ).toEqual(
        expect.arrayContaining([
          INVALID_INPUT_REPLY,
          UNAVAILABLE_REPLY,
          PHONE_RATE_LIMITED_REPLY,
          SESSION_RATE_LIMITED_REPLY,
        ]),
      );
      expect(responses['429'].content['text/plain'].schema).toEqual({
        type: 'string',
        enum: [IP_RATE_LIMITED_REPLY],
      });
    });

    it.each([
      [
        'a dial (form)',
        'application/x-www-form-urlencoded',
        `sessionId=oa-1&serviceCode=${encodeURIComponent(SERVICE_CODE)}&phoneNumber=%2B254700000091&text=`,
        /^CON /,
      ],
      [
        'a field past its limit',
        'application/json',
        JSON.stringify({
          sessionId: 'x'.repeat(SESSION_ID_MAX + 1),
          serviceCode: SERVICE_CODE,
          phoneNumber: '+254700000092',
          text: '',
        }),
        INVALID_INPUT_REPLY,
      ],
      ['malformed JSON', 'application/json', '{"sessionId":', INVALID_INPUT_REPLY],
      ['another media type', 'text/plain', 'hello', INVALID_INPUT_REPLY],
    ])('as the route really answers: %s → 200 text/plain', async (_case, contentType, payload, expected) => {
      const response = await stack.app.inject({
        method: 'POST',
        url: '/api/ussd',
        headers: { 'content-type': contentType },
        payload,
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      if (typeof expected === 'string') expect(response.body).toBe(expected);
      else expect(response.body).toMatch(expected);
    });
  });
});
