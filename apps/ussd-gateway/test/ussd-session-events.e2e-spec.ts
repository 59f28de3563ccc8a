import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { parseExposition } from '@dmrv/testing';
import { ENDED_REPLY } from '../src/ussd/hop-replay';
import { INVALID_INPUT_REPLY } from '../src/ussd-error.renderer';
import {
  captureLogs,
  createAccount,
  Handset,
  OPERATOR_TOKEN,
  post,
  redisReady,
  SERVICE_CODE,
  startApp,
  startTcpRelay,
  TcpRelay,
  useTestStack,
} from './ussd-test-kit';

const METRICS_TOKEN = 'ussd-events-metrics-token-1';
const EVENTS_TOKEN = 'aggregator-callback-secret-1';
const MISMATCH = { message: 'The session belongs to another phone number' };
const FORBIDDEN = { message: 'Session events are accepted from the aggregator only' };
const PIN = '58214';

const logs = captureLogs();
const stack = useTestStack(
  'ussd-events',
  { LOG_LEVEL: 'trace', METRICS_TOKEN, RATE_LIMIT_PER_IP: '100000' },
  { logDestination: logs.stream },
);

/** Africa's Talking's session-end notification for `handset`, as form fields. */
function notificationOf(handset: Handset, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    sessionId: handset.sessionId,
    phoneNumber: handset.phoneNumber,
    serviceCode: SERVICE_CODE,
    networkCode: '63902',
    status: 'Success',
    durationInMillis: '15432',
    hopsCount: '3',
    input: handset.text,
    lastAppResponse: 'Thank you for using our service. Goodbye!',
    errorMessage: '',
    cost: 'KES 0.0000',
    date: '2026-11-23 13:05:09',
    ...overrides,
  };
}

async function notify(
  fields: Record<string, unknown>,
  options: { form?: boolean } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await stack.app.inject({
    method: 'POST',
    url: '/api/ussd/events',
    payload: options.form
      ? new URLSearchParams(fields as Record<string, string>).toString()
      : JSON.stringify(fields),
    headers: { 'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json' },
  });
  return { status: response.statusCode, body: response.json() };
}

const listEvents = async (query = '', token: string | null = OPERATOR_TOKEN) => {
  const response = await stack.app.inject({
    method: 'GET',
    url: `/api/ussd/events${query}`,
    headers: token ? { 'x-operator-token': token } : {},
  });
  return {
    status: response.statusCode,
    body: response.json<
      { events: Array<Record<string, unknown>>; nextCursor: string | null } & { message?: string }
    >(),
  };
};

const debug = (sessionId: string) =>
  stack.app.inject({
    method: 'GET',
    url: `/api/ussd/debug/${encodeURIComponent(sessionId)}`,
    headers: { 'x-operator-token': OPERATOR_TOKEN },
  });

const rowOf = async (sessionId: string) =>
  (
    await stack.db.query<Record<string, unknown>>('SELECT * FROM ussd_session_events WHERE session_id = $1', [
      sessionId,
    ])
  ).rows;

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const response = await stack.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  return parseExposition(response.body).value(name, labels);
}

describe('POST /api/ussd/events: the session-end notification', () => {
  it('closes the open session (form body): a later hop is told it has ended; the outcome is kept', async () => {
    const handset = new Handset(stack.app);
    await handset.dial({ form: true });
    await handset.send('1', { form: true });
    expect(await notify(notificationOf(handset), { form: true })).toEqual({
      status: 200,
      body: { status: 'recorded' },
    });

    expect((await debug(handset.sessionId)).json()).toMatchObject({ debugInfo: { status: 'ended' } });
    const sessions = await stack.app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(sessions.json<{ activeSessions: string[] }>().activeSessions).not.toContain(handset.sessionId);
    expect(await handset.send('2')).toBe(ENDED_REPLY);

    expect(await rowOf(handset.sessionId)).toEqual([
      {
        id: expect.any(String),
        session_id: handset.sessionId,
        phone_number: handset.phoneNumber,
        service_code: SERVICE_CODE,
        network_code: '63902',
        status: 'Success',
        duration_ms: 15432,
        hops_count: 3,
        last_app_response: 'Thank you for using our service. Goodbye!',
        error_message: null,
        cost: 'KES 0.0000',
        reported_date: '2026-11-23 13:05:09',
        session_closed: true,
        received_at: expect.any(Date),
      },
    ]);
  });

  it('accepts JSON with numbers as numbers', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const body = {
      ...notificationOf(handset, { status: 'Failed', errorMessage: 'Gateway timeout' }),
      durationInMillis: 180000,
      hopsCount: 1,
    };
    expect(await notify(body)).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await rowOf(handset.sessionId)).toEqual([
      expect.objectContaining({
        status: 'Failed',
        duration_ms: 180000,
        hops_count: 1,
        error_message: 'Gateway timeout',
        session_closed: true,
      }),
    ]);
  });

  it('keeps one record per session: a repeated notification is answered "duplicate" and changes nothing', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const first = notificationOf(handset, { status: 'Incomplete' });
    expect(await notify(first)).toEqual({ status: 200, body: { status: 'recorded' } });
    const [kept] = await rowOf(handset.sessionId);
    expect(await notify({ ...first, status: 'Success', hopsCount: '9' })).toEqual({
      status: 200,
      body: { status: 'duplicate' },
    });
    expect(await rowOf(handset.sessionId)).toEqual([kept]);
  });

  it('concurrent copies of one notification keep exactly one record', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const answers = await Promise.all(Array.from({ length: 8 }, () => notify(notificationOf(handset))));
    expect(answers.map((answer) => (answer.body as { status: string }).status).sort()).toEqual([
      ...Array<string>(7).fill('duplicate'),
      'recorded',
    ]);
    expect(await rowOf(handset.sessionId)).toHaveLength(1);
  });

  it('records a session it does not know (expired, or served elsewhere) without closing anything', async () => {
    const stranger = new Handset(stack.app);
    expect(await notify(notificationOf(stranger))).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await rowOf(stranger.sessionId)).toEqual([expect.objectContaining({ session_closed: false })]);
    expect((await debug(stranger.sessionId)).statusCode).toBe(404);
  });

  it('refuses notifications naming another phone than the session’s, open or ended, even racing the genuine one: 409, nothing kept', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    expect(await notify(notificationOf(handset, { phoneNumber: '+254799999999' }))).toEqual({
      status: 409,
      body: MISMATCH,
    });
    expect(await rowOf(handset.sessionId)).toEqual([]);
    expect(await handset.send('1')).toMatch(/^CON Know More\n/);
    const forged = (index: number) =>
      notify(
        notificationOf(handset, {
          phoneNumber: `+25479999990${index}`,
          cost: 'KES 9.0000',
          lastAppResponse: 'forged',
        }),
      );
    const [genuine, ...forgeries] = await Promise.all([
      notify(notificationOf(handset)),
      ...Array.from({ length: 6 }, (_, index) => forged(index)),
    ]);
    expect(genuine).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(forgeries).toEqual(Array.from({ length: 6 }, () => ({ status: 409, body: MISMATCH })));
    // Once ended, the session still names its phone: a late forgery is refused all the same.
    expect(await notify(notificationOf(handset, { phoneNumber: '+254799999999' }))).toEqual({
      status: 409,
      body: MISMATCH,
    });
    expect(await rowOf(handset.sessionId)).toEqual([
      expect.objectContaining({
        phone_number: handset.phoneNumber,
        cost: 'KES 0.0000',
        last_app_response: 'Thank you for using our service. Goodbye!',
        session_closed: true,
      }),
    ]);
  });

  it('a notification naming another phone before the session starts never takes the record of the session’s own', async () => {
    const handset = new Handset(stack.app);
    expect(
      await notify(notificationOf(handset, { phoneNumber: '+254799999998', cost: 'KES 9.0000' })),
    ).toEqual({ status: 200, body: { status: 'recorded' } });
    await handset.dial();
    await handset.send('1');
    expect(await notify(notificationOf(handset))).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await handset.send('1')).toBe(ENDED_REPLY);
    const rows = await rowOf(handset.sessionId);
    expect(rows.find((row) => row.phone_number === handset.phoneNumber)).toMatchObject({
      cost: 'KES 0.0000',
      session_closed: true,
    });
    expect(rows).toHaveLength(2);
  });

  it.each([
    ['status missing', { status: undefined }, 'status'],
    ['status in the wrong case', { status: 'SUCCESS' }, 'status'],
    ['phone number not E.164', { phoneNumber: '0711000222' }, 'phoneNumber'],
    ['negative duration', { durationInMillis: '-5' }, 'durationInMillis'],
    [
      'sessionId and serviceCode missing',
      { sessionId: undefined, serviceCode: undefined },
      'sessionId, serviceCode',
    ],
  ])('%s: 400 naming the fields', async (_label, override, fields) => {
    const body = JSON.parse(
      JSON.stringify({ ...notificationOf(new Handset(stack.app)), ...override }),
    ) as Record<string, unknown>;
    expect(await notify(body)).toEqual({
      status: 400,
      body: { message: `Invalid session event: ${fields}` },
    });
  });

  it('a body that is not JSON: 400 { message }', async () => {
    const response = await stack.app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: '{"sessionId":',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json<object>())).toEqual(['message']);
  });

  it('posted to /api/ussd instead, it is still answered as invalid input (that contract is kept)', async () => {
    const reply = await post(stack.app, notificationOf(new Handset(stack.app)), { form: true });
    expect(reply).toEqual({
      status: 200,
      body: INVALID_INPUT_REPLY,
      contentType: 'text/plain; charset=utf-8',
    });
  });

  it('counts each notification by status and result, and the reported duration', async () => {
    const closedBefore = await metric('dmrv_ussd_session_events_total', {
      status: 'incomplete',
      result: 'closed',
    });
    const duplicateBefore = await metric('dmrv_ussd_session_events_total', {
      status: 'incomplete',
      result: 'duplicate',
    });
    const invalidBefore = await metric('dmrv_ussd_session_events_total', {
      status: 'invalid',
      result: 'invalid',
    });
    const durationsBefore = await metric('dmrv_ussd_session_reported_duration_seconds_count', {
      status: 'incomplete',
    });
    const withinMinuteBefore = await metric('dmrv_ussd_session_reported_duration_seconds_bucket', {
      status: 'incomplete',
      le: '60',
    });
    const handset = new Handset(stack.app);
    await handset.dial();
    const notification = notificationOf(handset, { status: 'Incomplete', durationInMillis: '42000' });
    await notify(notification);
    await notify(notification);
    await notify({ ...notification, status: 'nope' });
    expect(await metric('dmrv_ussd_session_events_total', { status: 'incomplete', result: 'closed' })).toBe(
      closedBefore + 1,
    );
    expect(
      await metric('dmrv_ussd_session_events_total', { status: 'incomplete', result: 'duplicate' }),
    ).toBe(duplicateBefore + 1);
    expect(await metric('dmrv_ussd_session_events_total', { status: 'invalid', result: 'invalid' })).toBe(
      invalidBefore + 1,
    );
    expect(await metric('dmrv_ussd_session_reported_duration_seconds_count', { status: 'incomplete' })).toBe(
      durationsBefore + 1,
    );
    expect(
      await metric('dmrv_ussd_session_reported_duration_seconds_bucket', { status: 'incomplete', le: '60' }),
    ).toBe(withinMinuteBefore + 1);
  });
});

describe('input (it holds PINs) is never stored or logged', () => {
  it('through a log-in, a notification carrying the PIN, a refused one and the operator list', async () => {
    const { customerId } = await createAccount(stack.app, { name: 'Amina Otieno', pin: PIN });
    const handset = new Handset(stack.app);
    await handset.dial();
    expect(await handset.sendAll('2', '1', customerId, PIN)).toMatch(/^CON Welcome, Amina/);
    const notification = notificationOf(handset);
    expect(notification.input).toContain(PIN);
    const firstLogLine = logs.raw.length;
    expect(await notify(notification, { form: true })).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await notify({ ...notification, sessionId: `${handset.sessionId}-x`, hopsCount: 'many' })).toEqual(
      {
        status: 400,
        body: { message: 'Invalid session event: hopsCount' },
      },
    );
    const listed = await listEvents(`?phoneNumber=${encodeURIComponent(handset.phoneNumber)}`);

    expect(JSON.stringify(await rowOf(handset.sessionId))).not.toContain(PIN);
    const everyRow = await stack.db.query('SELECT * FROM ussd_session_events');
    expect(JSON.stringify(everyRow.rows)).not.toContain(PIN);
    expect(JSON.stringify(listed.body)).not.toContain(PIN);
    const written = logs.raw.slice(firstLogLine).join('');
    expect(written).toContain('session end reported');
    expect(written).not.toContain(PIN);
    expect(written).not.toContain(notification.input);
  });
});

describe('GET /api/ussd/events: the kept notifications, for operators', () => {
  let phoneNumber: string;
  const sessionIds: string[] = [];

  beforeAll(async () => {
    const handset = new Handset(stack.app);
    phoneNumber = handset.phoneNumber;
    for (const status of ['Success', 'Failed', 'Success', 'Incomplete', 'Success']) {
      const session = new Handset(stack.app, phoneNumber);
      sessionIds.push(session.sessionId);
      await notify(notificationOf(session, { status }));
    }
  });

  const byPhone = `?phoneNumber=${encodeURIComponent('+')}`;

  it('lists them newest first, as kept, with the phone filter', async () => {
    const { status, body } = await listEvents(`${byPhone}${phoneNumber.slice(1)}`);
    expect(status).toBe(200);
    expect(body.events.map((event) => event.sessionId)).toEqual([...sessionIds].reverse());
    expect(body.nextCursor).toBeNull();
    expect(body.events[0]).toEqual({
      sessionId: sessionIds[4],
      phoneNumber,
      serviceCode: SERVICE_CODE,
      networkCode: '63902',
      status: 'Success',
      durationInMillis: 15432,
      hopsCount: 3,
      lastAppResponse: 'Thank you for using our service. Goodbye!',
      errorMessage: null,
      cost: 'KES 0.0000',
      date: '2026-11-23 13:05:09',
      sessionClosed: false,
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('filters by status and pages with an opaque cursor until the last page', async () => {
    const pages: string[][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query: string = `${byPhone}${phoneNumber.slice(1)}&status=Success&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const { status, body } = await listEvents(query);
      expect(status).toBe(200);
      pages.push(body.events.map((event) => event.sessionId as string));
      cursor = body.nextCursor;
    }
    expect(pages).toEqual([[sessionIds[4], sessionIds[2]], [sessionIds[0]]]);
  });

  const LIMIT = 'limit must be an integer from 1 to 100';
  const CURSOR = 'cursor is not one this service gave out';
  it.each([
    ['?limit=0', LIMIT],
    ['?limit=101', LIMIT],
    ['?limit=ten', LIMIT],
    ['?status=success', 'status must be one of Success, Incomplete, Failed'],
    ['?status=Success&status=Failed', 'status must be given once'],
    ['?phoneNumber=0711000222', 'phoneNumber must be an E.164 number such as +254712345678'],
    ['?cursor=42', CURSOR],
    ['?cursor=ZTA', CURSOR],
    ['?limit=0&cursor=x', `${CURSOR}; ${LIMIT}`],
  ])('%s: 400 naming the parameters and what is wrong with each', async (query, message) => {
    expect(await listEvents(query)).toEqual({ status: 400, body: { message } });
  });

  it('ignores parameters it does not know, prototype names included', async () => {
    const { status } = await listEvents('?foo=1&__proto__=x&constructor=y&limit=1');
    expect(status).toBe(200);
  });

  it('a missing or wrong token: 401 { message }', async () => {
    expect(await listEvents('', null)).toEqual({
      status: 401,
      body: { message: 'A valid x-operator-token header is required' },
    });
    expect(await listEvents('', 'wrong-token-of-some-length')).toEqual({
      status: 401,
      body: { message: 'A valid x-operator-token header is required' },
    });
  });
});

describe('without OPERATOR_TOKEN', () => {
  it('the list answers the 404 of an unknown route; notifications are still accepted', async () => {
    const { app: tokenless } = await startApp(stack.backing.env({ OPERATOR_TOKEN: undefined }));
    try {
      const list = await tokenless.inject({ method: 'GET', url: '/api/ussd/events' });
      expect(list.statusCode).toBe(404);
      expect(list.json()).toEqual({ message: 'Cannot GET /api/ussd/events' });
      const accepted = await tokenless.inject({
        method: 'POST',
        url: '/api/ussd/events',
        payload: notificationOf(new Handset(tokenless)),
      });
      expect(accepted.json()).toEqual({ status: 'recorded' });
    } finally {
      await tokenless.close();
    }
  });
});

describe('with EVENTS_ENABLED=false', () => {
  it('answers a notification, even from the aggregator with its token, with the 404 of an unknown route, keeping nothing', async () => {
    const { app: off } = await startApp(
      stack.backing.env({ EVENTS_ENABLED: 'false', EVENTS_TOKEN, NODE_ENV: 'production' }),
    );
    try {
      const handset = new Handset(off);
      const answer = await off.inject({
        method: 'POST',
        url: `/api/ussd/events?token=${EVENTS_TOKEN}`,
        payload: notificationOf(handset),
      });
      expect({ status: answer.statusCode, body: answer.json<unknown>() }).toEqual({
        status: 404,
        body: { message: 'Cannot POST /api/ussd/events' },
      });
      expect(await rowOf(handset.sessionId)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe('a dependency stopped', () => {
  let redisRelay: TcpRelay;
  let postgresRelay: TcpRelay;
  let outageApp: NestFastifyApplication;
  const outageLogs = captureLogs();

  beforeAll(async () => {
    redisRelay = await startTcpRelay(6379);
    const databaseUrl = new URL(stack.backing.database.url);
    postgresRelay = await startTcpRelay(Number(databaseUrl.port || 5432));
    databaseUrl.port = String(postgresRelay.port);
    ({ app: outageApp } = await startApp(
      stack.backing.env({
        REDIS_URL: `redis://127.0.0.1:${redisRelay.port}/0`,
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}outage:`,
        DATABASE_URL: databaseUrl.toString(),
        HOP_TIMEOUT_MS: '1000',
        LOG_LEVEL: 'info',
      }),
      { logDestination: outageLogs.stream },
    ));
  });

  afterAll(async () => {
    await outageApp?.close();
    await redisRelay?.close();
    await postgresRelay?.close();
  });

  const send = (fields: Record<string, string>) =>
    outageApp.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: fields,
      headers: { 'x-request-id': `outage-${fields.sessionId}` },
    });

  it('Redis: the notification is kept all the same; the session, not closed, expires on its own', async () => {
    const handset = new Handset(outageApp);
    await handset.dial();
    await redisRelay.stop();
    try {
      const answer = await send(notificationOf(handset));
      expect({ status: answer.statusCode, body: answer.json<unknown>() }).toEqual({
        status: 200,
        body: { status: 'recorded' },
      });
    } finally {
      await redisRelay.start();
      await redisReady(outageApp);
    }
    expect(await rowOf(handset.sessionId)).toEqual([expect.objectContaining({ session_closed: false })]);
    const warning = 'session end reported, but the session could not be closed: it expires on its own';
    expect(
      outageLogs.lines.filter(
        (line) => line.requestId === `outage-${handset.sessionId}` && line.msg === warning,
      ),
    ).toEqual([
      expect.objectContaining({ level: 40, sessionId: handset.sessionId, err: expect.any(Object) }),
    ]);
  });

  it('PostgreSQL: 503 { message }, so that the aggregator may send it again; then it is kept', async () => {
    const handset = new Handset(outageApp);
    await handset.dial();
    await postgresRelay.stop();
    try {
      const answer = await send(notificationOf(handset));
      expect({ status: answer.statusCode, body: answer.json<unknown>() }).toEqual({
        status: 503,
        body: { message: 'Session store unavailable. Please try again later.' },
      });
    } finally {
      await postgresRelay.start();
    }
    const again = await send(notificationOf(handset));
    expect(again.json()).toEqual({ status: 'recorded' });
    // Closed by the first attempt already, so the kept record says it found nothing open.
    expect(await rowOf(handset.sessionId)).toEqual([expect.objectContaining({ session_closed: false })]);
  });
});

describe('rate limit', () => {
  it("counts notifications, valid or not, under the session endpoint's policy: past it, 429 { message } and nothing kept", async () => {
    const { app: limited } = await startApp(
      stack.backing.env({
        RATE_LIMIT_PER_IP: '2',
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}limited:`,
        EVENTS_ALLOWED_CIDRS: '192.0.2.0/24',
      }),
    );
    try {
      const send = (fields: Record<string, string>) =>
        limited.inject({
          method: 'POST',
          url: '/api/ussd/events',
          payload: fields,
          remoteAddress: '192.0.2.7',
        });
      const first = new Handset(limited);
      expect((await send(notificationOf(first))).json()).toEqual({ status: 'recorded' });
      expect((await send(notificationOf(first, { status: 'bad' }))).statusCode).toBe(400);
      const last = new Handset(limited);
      const refused = await send(notificationOf(last));
      expect({ status: refused.statusCode, body: refused.json<unknown>() }).toEqual({
        status: 429,
        body: { message: 'ThrottlerException: Too Many Requests' },
      });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(await rowOf(last.sessionId)).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});

describe('who may post a notification', () => {
  it('refuses a sender that is not the aggregator: 403 { message }, nothing kept, the session open, its budget untouched', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const forged = await Promise.all(
      Array.from({ length: 5 }, () =>
        stack.app.inject({
          method: 'POST',
          url: '/api/ussd/events',
          payload: notificationOf(handset),
          remoteAddress: '203.0.113.9',
        }),
      ),
    );
    expect(
      forged.map((response) => ({ status: response.statusCode, body: response.json<unknown>() })),
    ).toEqual(Array.from({ length: 5 }, () => ({ status: 403, body: FORBIDDEN })));
    expect(await rowOf(handset.sessionId)).toEqual([]);
    expect(await handset.send('1')).toMatch(/^CON Know More\n/);
  });

  it('admits the aggregator’s addresses (EVENTS_ALLOWED_CIDRS) and the secret of its callback URL (EVENTS_TOKEN), nobody else', async () => {
    const { app: configured } = await startApp(
      stack.backing.env({
        EVENTS_ALLOWED_CIDRS: '196.201.214.0/24',
        EVENTS_TOKEN,
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}senders:`,
      }),
    );
    try {
      const send = async (
        handset: Handset,
        options: { url?: string; remoteAddress: string; headers?: Record<string, string> },
      ) => {
        const response = await configured.inject({
          method: 'POST',
          url: options.url ?? '/api/ussd/events',
          payload: new URLSearchParams(notificationOf(handset)).toString(),
          remoteAddress: options.remoteAddress,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
        });
        return { status: response.statusCode, body: response.json<unknown>() };
      };
      const recorded = { status: 200, body: { status: 'recorded' } };
      const refused = { status: 403, body: FORBIDDEN };
      expect(await send(new Handset(configured), { remoteAddress: '196.201.214.20' })).toEqual(recorded);
      expect(
        await send(new Handset(configured), {
          url: `/api/ussd/events?token=${EVENTS_TOKEN}`,
          remoteAddress: '203.0.113.9',
        }),
      ).toEqual(recorded);
      expect(
        await send(new Handset(configured), {
          remoteAddress: '203.0.113.9',
          headers: { 'x-events-token': EVENTS_TOKEN },
        }),
      ).toEqual(recorded);
      const strangers = [new Handset(configured), new Handset(configured), new Handset(configured)];
      expect(await send(strangers[0]!, { remoteAddress: '203.0.113.9' })).toEqual(refused);
      expect(
        await send(strangers[1]!, {
          url: `/api/ussd/events?token=${EVENTS_TOKEN}x`,
          remoteAddress: '203.0.113.9',
        }),
      ).toEqual(refused);
      // Configured, loopback is no longer admitted by default.
      expect(await send(strangers[2]!, { remoteAddress: '127.0.0.1' })).toEqual(refused);
      for (const stranger of strangers) expect(await rowOf(stranger.sessionId)).toEqual([]);
    } finally {
      await configured.close();
    }
  });
});
