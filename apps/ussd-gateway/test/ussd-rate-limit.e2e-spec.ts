import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  Backing,
  createBacking,
  Handset,
  OPERATOR_TOKEN,
  post,
  SERVICE_CODE,
  startApp,
} from './ussd-test-kit';

const LIMIT = 5;
const TOO_MANY = { message: 'ThrottlerException: Too Many Requests' };
const INVALID = 'END Invalid input. Please try again.';
const PHONE_LIMITED = 'END Too many requests from your phone. Please try again in a minute.';
const IP_LIMITED = 'END Too many requests. Please try again in a minute.';
const SESSION_LIMITED = 'END Too many requests in this session. Please dial again in a minute.';
const TEXT = 'text/plain; charset=utf-8';

let backing: Backing;
const apps: NestFastifyApplication[] = [];

beforeAll(async () => {
  backing = await createBacking('ussd-rate-limit');
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await backing?.cleanup();
});

async function appWith(
  namespace: string,
  overrides: Record<string, string | undefined> = {},
): Promise<NestFastifyApplication> {
  const { app } = await startApp(
    backing.env({
      RATE_LIMIT_PER_IP: String(LIMIT),
      REDIS_KEY_PREFIX: `${backing.redis.keyPrefix}${namespace}:`,
      ...overrides,
    }),
  );
  apps.push(app);
  return app;
}

const root = (app: NestFastifyApplication, remoteAddress: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/', remoteAddress, headers });

const dial = (
  app: NestFastifyApplication,
  remoteAddress: string,
  phoneNumber = '+254700000123',
  headers: Record<string, string> = {},
) =>
  post(
    app,
    {
      sessionId: `rl-${Math.random().toString(36).slice(2)}`,
      serviceCode: SERVICE_CODE,
      phoneNumber,
      text: '',
    },
    { remoteAddress, headers },
  );

describe('per-IP limit without a trusted proxy', () => {
  let app: NestFastifyApplication;
  let peer: NestFastifyApplication;

  beforeAll(async () => {
    app = await appWith('direct');
    peer = await appWith('direct');
  });

  it('answers 429 past the limit on every endpoint, counted in Redis across instances', async () => {
    const first = await root(app, '10.0.0.1');
    expect(first.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(first.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    for (let request = 2; request <= LIMIT - 1; request += 1)
      expect((await root(app, '10.0.0.1')).statusCode).toBe(200);
    // The fifth request goes to the other instance: the count is shared.
    expect((await dial(peer, '10.0.0.1')).status).toBe(200);
    const refused = await root(app, '10.0.0.1');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-limit']).toBeUndefined();
    expect(refused.json()).toEqual(TOO_MANY);
    expect((await dial(peer, '10.0.0.1')).status).toBe(429);
    expect((await app.inject({ method: 'GET', url: '/health', remoteAddress: '10.0.0.1' })).statusCode).toBe(
      429,
    );
    // Another client is not affected.
    expect((await root(app, '10.0.0.2')).statusCode).toBe(200);
  });

  it('counts session requests, invalid ones included, with the standard headers on every answer', async () => {
    const first = await dial(app, '10.0.0.20');
    expect(first).toMatchObject({ status: 200, body: expect.stringMatching(/^CON Welcome/) });
    const session = await app.inject({
      method: 'POST',
      url: '/api/ussd',
      remoteAddress: '10.0.0.20',
      payload: { sessionId: 'rl-headers', serviceCode: SERVICE_CODE, phoneNumber: '+254700000123', text: '' },
    });
    expect(session.headers).toMatchObject({
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': String(LIMIT - 2),
    });
    expect(Number(session.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect(session.headers['x-ratelimit-limit-phone']).toBeUndefined();
    const invalid = await app.inject({
      method: 'POST',
      url: '/api/ussd',
      remoteAddress: '10.0.0.20',
      payload: { sessionId: 'rl-invalid', text: '' },
    });
    expect(invalid.statusCode).toBe(200);
    expect(invalid.body).toBe(INVALID);
    expect(invalid.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 3));
    const notAnObject = await app.inject({
      method: 'POST',
      url: '/api/ussd',
      remoteAddress: '10.0.0.20',
      payload: '[1]',
      headers: { 'content-type': 'application/json' },
    });
    expect(notAnObject.body).toBe(INVALID);
    expect(notAnObject.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 4));
    expect((await dial(app, '10.0.0.20', '0712')).body).toBe(INVALID);
    // The spec's 429, as a text the handset can show (it cannot show JSON).
    for (const refused of [await dial(app, '10.0.0.20'), await dial(app, '10.0.0.20', 'not-a-phone')]) {
      expect(refused).toEqual({ status: 429, body: IP_LIMITED, contentType: TEXT });
    }
  });

  it('ignores a forged X-Forwarded-For', async () => {
    for (let request = 1; request <= LIMIT; request += 1) {
      expect((await root(app, '10.0.0.3', { 'x-forwarded-for': `198.51.100.${request}` })).statusCode).toBe(
        200,
      );
    }
    expect((await root(app, '10.0.0.3', { 'x-forwarded-for': '198.51.100.99' })).statusCode).toBe(429);
  });
});

describe('per-IP limit behind a trusted proxy', () => {
  it('counts the client address from X-Forwarded-For', async () => {
    const app = await appWith('proxied', { TRUST_PROXY_ENABLED: 'true' });
    for (let request = 1; request <= LIMIT; request += 1) {
      expect((await root(app, '10.0.0.254', { 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(200);
    }
    expect((await root(app, '10.0.0.254', { 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(429);
    // Same proxy, another subscriber's client: its own budget.
    expect((await root(app, '10.0.0.254', { 'x-forwarded-for': '203.0.113.8' })).statusCode).toBe(200);
  });

  it('does not let a client choose its address by prepending to X-Forwarded-For', async () => {
    const app = await appWith('proxied_prepend', { TRUST_PROXY_ENABLED: 'true' });
    // The proxy appends the address it saw; whatever the client wrote stands further left and is ignored.
    for (let request = 1; request <= LIMIT; request += 1) {
      const forwarded = `198.51.100.${request}, 203.0.113.9`;
      expect((await root(app, '10.0.0.254', { 'x-forwarded-for': forwarded })).statusCode).toBe(200);
    }
    expect(
      (await root(app, '10.0.0.254', { 'x-forwarded-for': '198.51.100.200, 203.0.113.9' })).statusCode,
    ).toBe(429);
  });

  it('trusts only the listed proxy addresses when TRUSTED_PROXY_CIDRS is set', async () => {
    const app = await appWith('proxied_cidrs', {
      TRUST_PROXY_ENABLED: 'true',
      TRUSTED_PROXY_CIDRS: '10.0.0.0/24',
    });
    for (let request = 1; request <= LIMIT; request += 1) {
      expect((await root(app, '10.0.0.254', { 'x-forwarded-for': '203.0.113.10' })).statusCode).toBe(200);
    }
    expect((await root(app, '10.0.0.254', { 'x-forwarded-for': '203.0.113.10' })).statusCode).toBe(429);
    // A peer outside the list is not a proxy: its X-Forwarded-For is ignored and its own address is counted.
    for (let request = 1; request <= LIMIT; request += 1) {
      expect((await root(app, '192.0.2.1', { 'x-forwarded-for': `198.51.100.${request}` })).statusCode).toBe(
        200,
      );
    }
    expect((await root(app, '192.0.2.1', { 'x-forwarded-for': '198.51.100.250' })).statusCode).toBe(429);
  });
});

describe('an exempted aggregator address', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await appWith('aggregator', {
      RATE_LIMIT_EXEMPT_CIDRS: '196.201.214.0/24, 10.9.9.9',
      RATE_LIMIT_PER_PHONE: '3',
    });
  });

  it('is not limited per IP, but per phone number, with an END text', async () => {
    for (let phone = 0; phone < LIMIT * 2; phone += 1) {
      expect((await dial(app, '196.201.214.10', `+25470000${String(phone).padStart(4, '0')}`)).body).toMatch(
        /^CON Welcome/,
      );
    }
    for (let request = 1; request <= 3; request += 1)
      expect((await dial(app, '196.201.214.11', '+254711111111')).body).toMatch(/^CON /);
    const limited = await dial(app, '196.201.214.12', '+254711111111');
    expect(limited).toMatchObject({ status: 200, body: PHONE_LIMITED });
    expect((await dial(app, '196.201.214.12', '+254722222222')).body).toMatch(/^CON Welcome/);
    for (let request = 1; request <= LIMIT + 2; request += 1)
      expect((await root(app, '10.9.9.9')).statusCode).toBe(200);
  });

  it('answers with the per-phone headers, and counts invalid requests against the phone they name', async () => {
    const counted = await app.inject({
      method: 'POST',
      url: '/api/ussd',
      remoteAddress: '196.201.214.20',
      payload: {
        sessionId: 'rl-phone-headers',
        serviceCode: SERVICE_CODE,
        phoneNumber: '+254733333333',
        text: '',
      },
    });
    expect(counted.body).toMatch(/^CON Welcome/);
    expect(counted.headers).toMatchObject({
      'x-ratelimit-limit-phone': '3',
      'x-ratelimit-remaining-phone': '2',
    });
    expect(Number(counted.headers['x-ratelimit-reset-phone'])).toBeGreaterThan(0);
    expect(counted.headers['x-ratelimit-limit']).toBeUndefined();
    for (let request = 1; request <= 2; request += 1) {
      expect(
        (
          await post(
            app,
            { sessionId: 'rl-phone-invalid', phoneNumber: '+254733333333', text: '' },
            { remoteAddress: '196.201.214.20' },
          )
        ).body,
      ).toBe(INVALID);
    }
    const limited = await app.inject({
      method: 'POST',
      url: '/api/ussd',
      remoteAddress: '196.201.214.21',
      payload: {
        sessionId: 'rl-phone-headers-2',
        serviceCode: SERVICE_CODE,
        phoneNumber: '+254733333333',
        text: '',
      },
    });
    expect(limited.statusCode).toBe(200);
    expect(limited.body).toBe(PHONE_LIMITED);
    expect(Number(limited.headers['retry-after-phone'])).toBeGreaterThan(0);
    // Requests naming no phone at all share one budget.
    for (let request = 1; request <= 3; request += 1) {
      expect(
        (await post(app, { sessionId: 'rl-no-phone', text: '' }, { remoteAddress: '196.201.214.20' })).body,
      ).toBe(INVALID);
    }
    expect(await post(app, 'null', { remoteAddress: '196.201.214.20' })).toMatchObject({
      status: 200,
      body: PHONE_LIMITED,
    });
  });

  it('still limits everyone else per IP', async () => {
    for (let request = 1; request <= LIMIT; request += 1) await root(app, '10.0.0.50');
    expect((await root(app, '10.0.0.50')).statusCode).toBe(429);
  });
});

describe('zero-config mode (no REDIS_URL)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await appWith('memory', { REDIS_URL: undefined, REDIS_KEY_PREFIX: undefined });
  });

  it('keeps sessions in memory behind the same interface', async () => {
    const handset = new Handset(app);
    expect(await handset.dial()).toMatch(/^CON Welcome/);
    expect(await handset.send('1')).toMatch(/^CON Know More/);
    expect((await handset.repeat()).body).toMatch(/^CON Know More/);
    expect(await handset.send('2')).toMatch(/^CON Pricing/);
    expect(await handset.send('*')).toBe('END Thank you for using our service. Goodbye!');
    const health = await app.inject({ method: 'GET', url: '/health', remoteAddress: '10.1.9.9' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ database: 'connected', redis: 'not configured' });
  });

  it('limits per IP in memory, session requests and other endpoints alike', async () => {
    for (let request = 1; request <= LIMIT - 2; request += 1)
      expect((await root(app, '10.1.0.1')).statusCode).toBe(200);
    const session = await dial(app, '10.1.0.1');
    expect(session.body).toMatch(/^CON Welcome/);
    expect((await dial(app, '10.1.0.1', 'not-a-phone')).body).toBe(INVALID);
    const refused = await dial(app, '10.1.0.1');
    expect(refused).toEqual({ status: 429, body: IP_LIMITED, contentType: TEXT });
    expect((await root(app, '10.1.0.1')).statusCode).toBe(429);
  });

  it('limits exempt traffic per phone in memory', async () => {
    const exempt = await appWith('memory_exempt', {
      REDIS_URL: undefined,
      REDIS_KEY_PREFIX: undefined,
      RATE_LIMIT_EXEMPT_CIDRS: '10.2.0.0/16',
      RATE_LIMIT_PER_PHONE: '2',
    });
    expect((await dial(exempt, '10.2.0.1', '+254744444444')).body).toMatch(/^CON Welcome/);
    expect((await dial(exempt, '10.2.0.2', '+254744444444')).body).toMatch(/^CON Welcome/);
    expect(await dial(exempt, '10.2.0.3', '+254744444444')).toMatchObject({
      status: 200,
      body: PHONE_LIMITED,
    });
    expect((await dial(exempt, '10.2.0.3', '+254755555555')).body).toMatch(/^CON Welcome/);
  });
});

describe('per-session limit', () => {
  const PER_SESSION = 4;

  async function appLimitedPerSession(
    namespace: string,
    overrides: Record<string, string | undefined> = {},
  ): Promise<NestFastifyApplication> {
    return appWith(namespace, {
      RATE_LIMIT_PER_IP: '100000',
      RATE_LIMIT_PER_SESSION: String(PER_SESSION),
      ...overrides,
    });
  }

  /** The handset's current request again, with the whole response (headers included). */
  const again = (handset: Handset) =>
    handset.app.inject({
      method: 'POST',
      url: '/api/ussd',
      payload: {
        sessionId: handset.sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: handset.phoneNumber,
        text: handset.text,
      },
    });

  it('limits one session whoever sends it, with an END text and its own headers; other sessions go on', async () => {
    const app = await appLimitedPerSession('per_session');
    const handset = new Handset(app);
    const first = await again(handset);
    expect(first.body).toMatch(/^CON Welcome/);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit-session': String(PER_SESSION),
      'x-ratelimit-remaining-session': String(PER_SESSION - 1),
    });
    await handset.send('1');
    await handset.send('2');
    // Retries count too: an aggregator (or anyone) repeating one request cannot keep a session busy for ever.
    expect((await handset.repeat()).body).toMatch(/^CON Pricing/);
    const refused = await again(handset);
    expect({
      status: refused.statusCode,
      body: refused.body,
      contentType: refused.headers['content-type'],
    }).toEqual({
      status: 200,
      body: SESSION_LIMITED,
      contentType: TEXT,
    });
    expect(Number(refused.headers['retry-after-session'])).toBeGreaterThan(0);
    // The refused request took no lock and changed nothing: the session is as it was, for when the window is over.
    const stored = await app.inject({
      method: 'GET',
      url: `/api/ussd/debug/${handset.sessionId}`,
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(stored.json()).toMatchObject({ debugInfo: { state: 'info', status: 'active' } });
    // The same phone in another session is not affected.
    expect(await new Handset(app, handset.phoneNumber).dial()).toMatch(/^CON Welcome/);
  });

  it.each([
    ['on Redis', {}],
    ['in memory', { REDIS_URL: undefined, REDIS_KEY_PREFIX: undefined }],
  ])(
    'never lets hops or notifications naming another phone use up the subscriber’s session (%s)',
    async (label, overrides) => {
      const app = await appLimitedPerSession(`foreign_${label === 'on Redis' ? 'r' : 'm'}`, overrides);
      const handset = new Handset(app);
      expect(await handset.dial()).toMatch(/^CON Welcome/);
      const foreign = (phoneNumber: string) =>
        post(app, { sessionId: handset.sessionId, serviceCode: SERVICE_CODE, phoneNumber, text: '1' });
      const notification = (phoneNumber: string) =>
        app.inject({
          method: 'POST',
          url: '/api/ussd/events',
          payload: { sessionId: handset.sessionId, phoneNumber, serviceCode: SERVICE_CODE, status: 'Failed' },
        });
      // 35 at once: hops from 25 other phones (one of them repeating itself) and 10 notifications naming other phones.
      const repeater = '+254799000001';
      const [hops, repeated, notifications] = await Promise.all([
        Promise.all(
          Array.from({ length: 15 }, (_, index) => foreign(`+2547980000${String(index).padStart(2, '0')}`)),
        ),
        Promise.all(Array.from({ length: 10 }, () => foreign(repeater))),
        Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            notification(`+2547970000${String(index).padStart(2, '0')}`),
          ),
        ),
      ]);
      expect(hops.map((reply) => reply.body)).toEqual(Array.from({ length: 15 }, () => INVALID));
      // A foreign phone is limited on its own count: its fifth hop and later are refused, the subscriber is not.
      expect(repeated.map((reply) => reply.body).sort()).toEqual(
        [
          ...Array.from({ length: 4 }, () => INVALID),
          ...Array.from({ length: 6 }, () => SESSION_LIMITED),
        ].sort(),
      );
      expect(notifications.map((reply) => reply.statusCode)).toEqual(Array.from({ length: 10 }, () => 409));
      // The subscriber's session has used one hop of its budget: three more are served.
      expect(await handset.send('1')).toMatch(/^CON Know More/);
      expect(await handset.send('1')).toMatch(/^CON About this service/);
      expect(await handset.send('0')).toMatch(/^CON Know More/);
      expect(await handset.send('2')).toBe(SESSION_LIMITED);
    },
  );

  it.each([
    ['on Redis', {}],
    ['in memory', { REDIS_URL: undefined, REDIS_KEY_PREFIX: undefined }],
  ])(
    'admits exactly the limit out of 30 concurrent requests on one session (%s)',
    async (label, overrides) => {
      const app = await appLimitedPerSession(`burst_${label === 'on Redis' ? 'r' : 'm'}`, overrides);
      const handset = new Handset(app);
      const answers = await Promise.all(Array.from({ length: 30 }, () => handset.repeat()));
      const admitted = answers.filter((answer) => answer.body.startsWith('CON Welcome'));
      const refused = answers.filter((answer) => answer.body === SESSION_LIMITED);
      expect({ admitted: admitted.length, refused: refused.length }).toEqual({
        admitted: PER_SESSION,
        refused: 30 - PER_SESSION,
      });
    },
  );
});
