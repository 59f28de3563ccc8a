import { SessionEventsRepository } from '../src/events/session-events.repository';
import { OperatorRecordsRepository } from '../src/orders/orders.repository';
import { SessionStore } from '../src/sessions/session-store';
import { Handset, OPERATOR_TOKEN, startApp, useTestStack } from './ussd-test-kit';

const PIN = '86420';
const stack = useTestStack('ussd-operator-records', { RATE_LIMIT_PER_IP: '100000' });
let phoneCounter = 0;
const phone = (): string => `+2547${String(30_000_000 + process.pid * 100 + (phoneCounter += 1)).slice(-8)}`;

jest.setTimeout(60_000);

const call = (
  method: 'GET' | 'PATCH',
  url: string,
  options: { body?: unknown; token?: string | null } = {},
) =>
  stack.app.inject({
    method,
    url,
    headers: {
      ...(options.token === null ? {} : { 'x-operator-token': options.token ?? OPERATOR_TOKEN }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });

const answer = async (
  method: 'GET' | 'PATCH',
  url: string,
  options: { body?: unknown; token?: string | null } = {},
) => {
  const response = await call(method, url, options);
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
};

/** A household with `orders` orders and one ticket; returns its phone and numbers, newest last. */
async function household(
  orders: number,
): Promise<{ phoneNumber: string; orderNumbers: string[]; ticketNumber: string }> {
  const creator = new Handset(stack.app, phone());
  await creator.dial();
  const customerId = /Your Customer ID is (C[0-9A-F]{8})/.exec(
    await creator.sendAll('2', '2', 'Operator Fixture', '00', PIN, PIN),
  )![1]!;
  const orderNumbers: string[] = [];
  for (let index = 0; index < orders; index += 1) {
    const handset = new Handset(stack.app, creator.phoneNumber);
    await handset.dial();
    const placed = await handset.sendAll(
      '2',
      '1',
      customerId,
      PIN,
      '4',
      '1',
      String(index + 1),
      'Kibera market',
      PIN,
    );
    orderNumbers.push(/Order (F\d{6}) placed/.exec(placed)![1]!);
  }
  const reporter = new Handset(stack.app, creator.phoneNumber);
  await reporter.dial();
  const ticketNumber = /ticket number is (T\d{6})/.exec(
    await reporter.sendAll('2', '1', customerId, PIN, '6', '2', 'Smoky'),
  )![1]!;
  return { phoneNumber: creator.phoneNumber, orderNumbers, ticketNumber };
}

describe('operator endpoints for orders and tickets', () => {
  let fixture: Awaited<ReturnType<typeof household>>;
  beforeAll(async () => {
    fixture = await household(3);
  });

  it('lists orders newest first with their details, filtered by phone and paged by cursor', async () => {
    const first = await answer(
      'GET',
      `/api/ussd/orders?phone=${encodeURIComponent(fixture.phoneNumber)}&limit=2`,
    );
    expect(first.status).toBe(200);
    const items = first.body.items as Array<Record<string, unknown>>;
    expect(items.map((order) => order.orderNumber)).toEqual([
      fixture.orderNumbers[2],
      fixture.orderNumbers[1],
    ]);
    expect(items[0]).toEqual({
      orderNumber: fixture.orderNumbers[2],
      customerId: expect.stringMatching(/^C[0-9A-F]{8}$/),
      phoneNumber: fixture.phoneNumber,
      productCode: 'pellets-10kg',
      quantity: 3,
      unitPriceMinor: 25_000,
      totalMinor: 75_000,
      currency: 'KES',
      deliveryPoint: 'Kibera market',
      status: 'placed',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await answer(
      'GET',
      `/api/ussd/orders?phone=${encodeURIComponent(fixture.phoneNumber)}&limit=2&cursor=${first.body.nextCursor as string}`,
    );
    expect(second).toEqual({
      status: 200,
      body: { items: [expect.objectContaining({ orderNumber: fixture.orderNumbers[0] })], nextCursor: null },
    });
  });

  it('says null for nextCursor on a full last page, as on a short one', async () => {
    const phone = encodeURIComponent(fixture.phoneNumber);
    expect(await answer('GET', `/api/ussd/orders?phone=${phone}&limit=3`)).toEqual({
      status: 200,
      body: { items: fixture.orderNumbers.map(() => expect.anything()), nextCursor: null },
    });
    const first = await answer('GET', `/api/ussd/orders?phone=${phone}&limit=2`);
    const rest = await answer(
      'GET',
      `/api/ussd/orders?phone=${phone}&limit=1&cursor=${first.body.nextCursor as string}`,
    );
    expect(rest).toEqual({
      status: 200,
      body: { items: [expect.objectContaining({ orderNumber: fixture.orderNumbers[0] })], nextCursor: null },
    });
  });

  it('filters by status and date', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const placed = await answer(
      'GET',
      `/api/ussd/orders?status=placed&from=${today}&to=${today}&phone=${encodeURIComponent(fixture.phoneNumber)}`,
    );
    expect((placed.body.items as unknown[]).length).toBe(3);
    const delivered = await answer(
      'GET',
      `/api/ussd/orders?status=delivered&phone=${encodeURIComponent(fixture.phoneNumber)}`,
    );
    expect(delivered).toEqual({ status: 200, body: { items: [], nextCursor: null } });
    const future = await answer('GET', '/api/ussd/orders?from=2999-01-01');
    expect(future).toEqual({ status: 200, body: { items: [], nextCursor: null } });
  });

  it('moves an order along the allowed transitions and refuses the others with 409', async () => {
    const number = fixture.orderNumbers[0]!;
    const dispatched = await answer('PATCH', `/api/ussd/orders/${number}`, {
      body: { status: 'dispatched' },
    });
    expect(dispatched).toEqual({
      status: 200,
      body: expect.objectContaining({ orderNumber: number, status: 'dispatched' }),
    });
    expect(await answer('PATCH', `/api/ussd/orders/${number}`, { body: { status: 'placed' } })).toEqual({
      status: 409,
      body: { message: `order ${number} cannot go from dispatched to placed` },
    });
    expect(
      (await answer('PATCH', `/api/ussd/orders/${number}`, { body: { status: 'delivered' } })).body.status,
    ).toBe('delivered');
    expect(await answer('PATCH', `/api/ussd/orders/${number}`, { body: { status: 'cancelled' } })).toEqual({
      status: 409,
      body: { message: `order ${number} cannot go from delivered to cancelled` },
    });
    // The household sees it on "My orders".
    const filtered = await answer(
      'GET',
      `/api/ussd/orders?status=delivered&phone=${encodeURIComponent(fixture.phoneNumber)}`,
    );
    expect((filtered.body.items as Array<{ orderNumber: string }>).map((order) => order.orderNumber)).toEqual(
      [number],
    );
  });

  it('two operators racing make one transition', async () => {
    const number = fixture.orderNumbers[1]!;
    const results = await Promise.all([
      answer('PATCH', `/api/ussd/orders/${number}`, { body: { status: 'cancelled' } }),
      answer('PATCH', `/api/ussd/orders/${number}`, { body: { status: 'cancelled' } }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
  });

  it('lists and moves tickets', async () => {
    const listed = await answer('GET', `/api/ussd/tickets?phone=${encodeURIComponent(fixture.phoneNumber)}`);
    expect(listed.body.items).toEqual([
      {
        ticketNumber: fixture.ticketNumber,
        customerId: expect.stringMatching(/^C[0-9A-F]{8}$/),
        phoneNumber: fixture.phoneNumber,
        category: 'smoke',
        note: 'Smoky',
        status: 'open',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    expect(
      (await answer('PATCH', `/api/ussd/tickets/${fixture.ticketNumber}`, { body: { status: 'resolved' } }))
        .body.status,
    ).toBe('resolved');
    expect(
      (
        await answer('PATCH', `/api/ussd/tickets/${fixture.ticketNumber}`, {
          body: { status: 'in_progress' },
        })
      ).body.status,
    ).toBe('in_progress');
    expect(
      (await answer('PATCH', `/api/ussd/tickets/${fixture.ticketNumber}`, { body: { status: 'closed' } }))
        .body.status,
    ).toBe('closed');
    expect(
      await answer('PATCH', `/api/ussd/tickets/${fixture.ticketNumber}`, { body: { status: 'open' } }),
    ).toEqual({
      status: 409,
      body: { message: `ticket ${fixture.ticketNumber} cannot go from closed to open` },
    });
  });

  it.each([
    ['/api/ussd/orders?status=lost', 'status must be one of placed, dispatched, delivered, cancelled'],
    ['/api/ussd/tickets?status=placed', 'status must be one of open, in_progress, resolved, closed'],
    ['/api/ussd/orders?phone=0712345678', 'phone must be an E.164 number such as +254712345678'],
    [
      '/api/ussd/orders?from=yesterday',
      'from must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone',
    ],
    [
      '/api/ussd/orders?to=2026-02-30',
      'to must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone',
    ],
    [
      '/api/ussd/orders?from=2026-02-30T10:00Z',
      'from must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone',
    ],
    [
      '/api/ussd/tickets?to=2026-04-31T23:59:59%2B03:00',
      'to must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone',
    ],
    [
      '/api/ussd/orders?from=2026-11-01T24:30Z',
      'from must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone',
    ],
    ['/api/ussd/orders?from=2026-11-02&to=2026-11-01', 'from must be before to'],
    ['/api/ussd/orders?cursor=abc', 'cursor is not one this service gave out'],
    ['/api/ussd/orders?limit=0', 'limit must be an integer from 1 to 100'],
    ['/api/ussd/orders?limit=101', 'limit must be an integer from 1 to 100'],
    ['/api/ussd/orders?limit=1.5', 'limit must be an integer from 1 to 100'],
    ['/api/ussd/orders?sort=asc', 'property sort should not exist'],
    ['/api/ussd/tickets?constructor=x', 'property constructor should not exist'],
    ['/api/ussd/orders?status=placed&status=delivered', 'status must be given once'],
  ])('GET %s → 400 naming the parameter', async (url, message) => {
    expect(await answer('GET', url)).toEqual({ status: 400, body: { message } });
  });

  it.each([
    [{ status: 'lost' }, 'status must be one of placed, dispatched, delivered, cancelled'],
    [{}, 'status must be one of placed, dispatched, delivered, cancelled'],
    [{ status: 'dispatched', note: 'x' }, 'property note should not exist'],
    [[], 'status must be one of placed, dispatched, delivered, cancelled'],
  ])('PATCH an order with %j → 400', async (body, message) => {
    expect(await answer('PATCH', `/api/ussd/orders/${fixture.orderNumbers[2]!}`, { body })).toEqual({
      status: 400,
      body: { message },
    });
  });

  it.each([
    ['orders/F999999999', 'order F999999999 not found'],
    ['orders/T000001', 'order T000001 not found'],
    ['tickets/T999999999', 'ticket T999999999 not found'],
    ['tickets/nonsense', 'ticket nonsense not found'],
  ])('PATCH %s → 404', async (path, message) => {
    const status = path.startsWith('orders') ? 'cancelled' : 'closed';
    expect(await answer('PATCH', `/api/ussd/${path}`, { body: { status } })).toEqual({
      status: 404,
      body: { message },
    });
  });

  it.each([
    ['GET', '/api/ussd/orders'],
    ['GET', '/api/ussd/tickets'],
    ['PATCH', '/api/ussd/orders/F000001'],
    ['GET', '/api/ussd/openapi.json'],
  ] as const)('%s %s without or with a wrong token → 401', async (method, url) => {
    const expected = { status: 401, body: { message: 'A valid x-operator-token header is required' } };
    expect(
      await answer(method, url, {
        token: null,
        body: method === 'PATCH' ? { status: 'cancelled' } : undefined,
      }),
    ).toEqual(expected);
    expect(
      await answer(method, url, {
        token: 'wrong-token-of-some-length',
        body: method === 'PATCH' ? { status: 'cancelled' } : undefined,
      }),
    ).toEqual(expected);
  });

  it('hide completely (404 like an unknown route) without OPERATOR_TOKEN', async () => {
    const { app } = await startApp(
      stack.backing.env({
        OPERATOR_TOKEN: undefined,
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}hidden:`,
      }),
    );
    try {
      const response = await app.inject({ method: 'GET', url: '/api/ussd/orders' });
      expect({ status: response.statusCode, body: response.json() as unknown }).toEqual({
        status: 404,
        body: { message: 'Cannot GET /api/ussd/orders' },
      });
    } finally {
      await app.close();
    }
  });
});

// Issue 32: every parameter of the operator endpoints has a documented maximum length, refused past it with a 400
// before it is parsed, and before PostgreSQL or the session store is asked anything.
describe('operator parameters longer than their documented maximum', () => {
  const long = (length: number): string => 'a'.repeat(length);
  it.each([
    [
      'debug: 101 characters',
      'GET',
      `/api/ussd/debug/${long(101)}`,
      'sessionId must be at most 100 characters',
    ],
    [
      'debug: 101 emoji',
      'GET',
      `/api/ussd/debug/${'%F0%9F%98%80'.repeat(101)}`,
      'sessionId must be at most 100 characters',
    ],
    [
      'orders: phone',
      'GET',
      `/api/ussd/orders?phone=%2B${'2'.repeat(16)}`,
      'phone must be at most 16 characters',
    ],
    ['orders: status', 'GET', `/api/ussd/orders?status=${long(33)}`, 'status must be at most 32 characters'],
    ['tickets: from', 'GET', `/api/ussd/tickets?from=${long(30)}`, 'from must be at most 29 characters'],
    [
      'tickets: a 15 KB to',
      'GET',
      `/api/ussd/tickets?to=${long(15_000)}`,
      'to must be at most 29 characters',
    ],
    ['orders: cursor', 'GET', `/api/ussd/orders?cursor=${long(33)}`, 'cursor must be at most 32 characters'],
    ['tickets: limit', 'GET', `/api/ussd/tickets?limit=0001`, 'limit must be at most 3 characters'],
    [
      'order number',
      'PATCH',
      `/api/ussd/orders/F${'1'.repeat(16)}`,
      'orderNumber must be at most 16 characters',
    ],
    [
      'a 2 KB ticket number',
      'PATCH',
      `/api/ussd/tickets/T${'1'.repeat(2_000)}`,
      'ticketNumber must be at most 16 characters',
    ],
    ['events: cursor', 'GET', `/api/ussd/events?cursor=${long(33)}`, 'cursor must be at most 32 characters'],
    [
      'events: phoneNumber',
      'GET',
      `/api/ussd/events?phoneNumber=%2B${'2'.repeat(16)}`,
      'phoneNumber must be at most 16 characters',
    ],
    ['events: status', 'GET', `/api/ussd/events?status=${long(33)}`, 'status must be at most 32 characters'],
  ] as const)('%s → 400, nothing asked of PostgreSQL or the store', async (_case, method, url, message) => {
    const reads = [
      ...(['listOrders', 'listTickets', 'moveOrder', 'moveTicket'] as const).map((name) =>
        jest.spyOn(stack.app.get(OperatorRecordsRepository), name),
      ),
      jest.spyOn(stack.app.get(SessionEventsRepository), 'list'),
      ...(['get', 'listActive'] as const).map((name) => jest.spyOn(stack.app.get(SessionStore), name)),
    ];
    try {
      expect(await answer(method, url, method === 'PATCH' ? { body: { status: 'delivered' } } : {})).toEqual({
        status: 400,
        body: { message },
      });
      expect(reads.map((spy) => spy.mock.calls.length)).toEqual(reads.map(() => 0));
    } finally {
      for (const spy of reads) spy.mockRestore();
    }
  });

  it('still looks up a session id of exactly 100 characters (emoji counted once)', async () => {
    expect(await answer('GET', `/api/ussd/debug/${'%F0%9F%98%80'.repeat(100)}`)).toEqual({
      status: 404,
      body: { message: 'Session expired or never started' },
    });
  });
});
