import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MetricsModule } from '@dmrv/metrics';
import { Exposition, mismatchesWithDeploymentDoc, scrape, STOPPED_PORT, TEST_REDIS_URL } from '@dmrv/testing';
import { OUT_OF_STEP_REPLY } from '../src/ussd/hop-replay';
import {
  Backing,
  createAccount as createAccountThrough,
  createBacking,
  Handset,
  post,
  redisReady,
  SERVICE_CODE,
  startApp,
  startTcpRelay,
  viaProxy,
} from './ussd-test-kit';

const METRICS_TOKEN = 'ussd-metrics-token-00001';
const PIN = '47213';
/** The handsets of this file come from loopback, an exempt aggregator address: limited per phone, not per IP. */
const PER_PHONE = 12;
const PER_IP = 3;

// Every family the gateway exports, scraped through the separate metrics port of an app booted by bootstrap() on a
// real PostgreSQL and Redis; each test reads the counters before and after what they count.
describe('ussd-gateway metrics', () => {
  let backing: Backing;
  let app: NestFastifyApplication;
  let metricsUrl: string;

  const metrics = (): Promise<Exposition> => scrape(metricsUrl);

  /** How far each of `series` moved while `act` ran. */
  async function movement(
    series: Array<[name: string, labels: Record<string, string>]>,
    act: () => Promise<unknown>,
  ): Promise<number[]> {
    const before = await metrics();
    await act();
    const after = await metrics();
    return series.map(([name, labels]) => after.value(name, labels) - before.value(name, labels));
  }

  const hops = (outcome: string, screen: string): [string, Record<string, string>] => [
    'dmrv_ussd_hops_total',
    { outcome, screen, language: 'en' },
  ];

  async function createAccount(name: string): Promise<string> {
    return (await createAccountThrough(app, { name, pin: PIN })).customerId;
  }

  /** A new session at the PIN prompt of `customerId`. */
  async function atPinPrompt(customerId: string): Promise<Handset> {
    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '1', customerId);
    return handset;
  }

  beforeAll(async () => {
    backing = await createBacking('ussd-metrics');
    ({ app } = await startApp(
      backing.env({
        METRICS_PORT: '0',
        METRICS_TOKEN,
        RATE_LIMIT_PER_IP: String(PER_IP),
        RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1',
        RATE_LIMIT_PER_PHONE: String(PER_PHONE),
      }),
    ));
    metricsUrl = `http://127.0.0.1:${app.get(MetricsModule).listenerPort}/metrics`;
  });

  afterAll(async () => {
    await app?.close();
    await backing?.cleanup();
  });

  it('counts hops by outcome and screen, and sessions as they start and end', async () => {
    const handset = new Handset(app);
    const moved = await movement(
      [
        hops('continue', 'preMenu'),
        hops('continue', 'knowMore'),
        hops('replay', 'knowMore'),
        hops('end', 'ended'),
        hops('after_end', 'ended'),
        ['dmrv_ussd_sessions_started_total', { language: 'en' }],
        ['dmrv_ussd_sessions_ended_total', { outcome: 'goodbye', language: 'en' }],
        ['dmrv_http_request_duration_seconds_count', { route: '/api/ussd', method: 'POST', status: '200' }],
      ],
      async () => {
        expect(await handset.dial()).toMatch(/^CON Welcome/);
        expect(await handset.send('1')).toMatch(/^CON Know More/);
        await handset.repeat();
        expect(await handset.send('*')).toMatch(/^END /);
        expect(await handset.send('1')).toBe('END This session has ended. Please dial again.');
      },
    );
    expect(moved).toEqual([1, 1, 1, 1, 1, 1, 1, 5]);
  });

  it('counts a hop out of step (answered, the session left as it was) and invalid requests', async () => {
    const handset = new Handset(app);
    await handset.dial();
    await handset.send('1');
    const moved = await movement(
      [hops('out_of_step', 'knowMore'), ['dmrv_ussd_sessions_ended_total', {}], hops('invalid', 'none')],
      async () => {
        const outOfStep = {
          sessionId: handset.sessionId,
          serviceCode: SERVICE_CODE,
          phoneNumber: handset.phoneNumber,
          text: '2*1',
        };
        expect((await post(app, outOfStep)).body).toBe(OUT_OF_STEP_REPLY);
        // Answered as an END text (what a handset can show), not an HTTP error.
        expect((await post(app, { sessionId: 'no-phone-or-code', text: '' })).body).toBe(
          'END Invalid input. Please try again.',
        );
      },
    );
    expect(moved).toEqual([1, 0, 1]);
  });

  it('counts created accounts as sessions ended with account_created', async () => {
    const [created] = await movement(
      [['dmrv_ussd_sessions_ended_total', { outcome: 'account_created' }]],
      () => createAccount('Metrics Creator'),
    );
    expect(created).toBe(1);
  });

  it('counts PIN failures by reason and lockouts', async () => {
    const customerId = await createAccount('Metrics Lockout');
    const failures = (reason: string): [string, Record<string, string>] => [
      'dmrv_ussd_pin_failures_total',
      { reason },
    ];
    const moved = await movement(
      [
        failures('wrong_pin'),
        failures('locked'),
        ['dmrv_ussd_pin_lockouts_total', {}],
        ['dmrv_ussd_sessions_ended_total', { outcome: 'locked_now' }],
        ['dmrv_ussd_sessions_ended_total', { outcome: 'locked' }],
      ],
      async () => {
        const first = await atPinPrompt(customerId);
        expect(await first.send('11112')).toMatch(/^CON Customer ID or PIN is wrong\. 2 tries left\./);
        expect(await first.send('11113')).toMatch(/^CON Customer ID or PIN is wrong\. 1 try left\./);
        expect(await first.send('11114')).toMatch(/^END Too many wrong PINs/);
        expect(await (await atPinPrompt(customerId)).send(PIN)).toMatch(/^END Your account is locked/);
        // A Customer ID without an account is answered, and counted, like a wrong PIN.
        expect(await (await atPinPrompt('CFFFFFFF0')).send(PIN)).toMatch(/^CON Customer ID or PIN is wrong/);
      },
    );
    expect(moved).toEqual([4, 1, 1, 1, 1]);
  });

  it('times the Redis scripts of every hop', async () => {
    const count = (script: string): [string, Record<string, string>] => [
      'dmrv_ussd_redis_script_duration_seconds_count',
      { script, result: 'ok' },
    ];
    const moved = await movement([count('ussdCountLockAndRead'), count('ussdWriteAndUnlock')], () =>
      new Handset(app).dial(),
    );
    expect(moved).toEqual([1, 1]);
    const exposed = await metrics();
    expect(exposed.types.get('dmrv_ussd_redis_script_duration_seconds')).toBe('histogram');
    expect(
      exposed.value('dmrv_ussd_redis_script_duration_seconds_sum', { script: 'ussdCountLockAndRead' }),
    ).toBeGreaterThan(0);
  });

  it('counts refusals per limit: per IP on the session endpoint and elsewhere, per phone for exempt traffic', async () => {
    const refused = (limit: string): [string, Record<string, string>] => [
      'dmrv_ussd_rate_limited_total',
      { limit },
    ];
    const dial = (remoteAddress: string, phoneNumber = '+254700000999') =>
      post(
        app,
        {
          sessionId: `m-${Math.random().toString(36).slice(2)}`,
          serviceCode: SERVICE_CODE,
          phoneNumber,
          text: '',
        },
        { remoteAddress },
      );
    const moved = await movement(
      [refused('ip'), refused('phone'), hops('rate_limited', 'none')],
      async () => {
        for (let i = 0; i < PER_IP; i += 1) expect((await dial('10.0.0.1')).status).toBe(200);
        expect((await dial('10.0.0.1')).status).toBe(429);
        for (let i = 0; i < PER_IP; i += 1)
          expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.0.0.2' })).statusCode).toBe(
            200,
          );
        expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.0.0.2' })).statusCode).toBe(
          429,
        );
        for (let i = 0; i < PER_PHONE; i += 1)
          expect((await dial('127.0.0.1', '+254711111111')).body).toMatch(/^CON Welcome/);
        expect((await dial('127.0.0.1', '+254711111111')).body).toMatch(
          /^END Too many requests from your phone/,
        );
      },
    );
    expect(moved).toEqual([2, 1, 2]);
  });

  it('keeps probes and scrapes out of the per-IP limit and the HTTP metrics', async () => {
    const before = await metrics();
    for (let i = 0; i < PER_IP + 2; i += 1) {
      expect(
        (await app.inject({ method: 'GET', url: '/health/ready', remoteAddress: '10.0.0.3' })).statusCode,
      ).toBe(200);
      expect(
        (await app.inject({ method: 'GET', url: '/health/live', remoteAddress: '10.0.0.3' })).statusCode,
      ).toBe(200);
      const scraped = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        remoteAddress: '10.0.0.3',
      });
      expect(scraped.statusCode).toBe(200);
    }
    // The address still has its whole budget on a throttled route.
    for (let i = 0; i < PER_IP; i += 1)
      expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.0.0.3' })).statusCode).toBe(200);
    const after = await metrics();
    expect(after.value('dmrv_ussd_rate_limited_total')).toBe(before.value('dmrv_ussd_rate_limited_total'));
    expect(after.find('dmrv_http_request_duration_seconds_count', { route: '/metrics' })).toEqual([]);
    const ready = (labels: Record<string, string>) =>
      after.value('dmrv_http_request_duration_seconds_count', labels) -
      before.value('dmrv_http_request_duration_seconds_count', labels);
    expect(ready({ route: '/health/ready', status: '200' })).toBe(PER_IP + 2);
  });

  it('counts a hop whose dependency does not answer as unavailable', async () => {
    const { app: cut } = await startApp(
      backing.env({
        METRICS_PORT: '0',
        REDIS_URL: `redis://127.0.0.1:${STOPPED_PORT}/0`,
        HOP_TIMEOUT_MS: '1000',
      }),
    );
    try {
      expect((await new Handset(cut).repeat()).body).toBe(
        'END Service temporarily unavailable. Please try again later.',
      );
      const exposed = await scrape(`http://127.0.0.1:${cut.get(MetricsModule).listenerPort}/metrics`);
      expect(exposed.value('dmrv_ussd_hops_total', { outcome: 'unavailable', screen: 'none' })).toBe(1);
    } finally {
      await cut.close();
    }
  });

  it('answers /health/ready with the /health record', async () => {
    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect([ready.statusCode, ready.headers['cache-control']]).toEqual([200, 'no-store']);
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'connected', redis: 'connected' });
    expect(Object.keys(ready.json<object>())).toEqual(Object.keys(health.json<object>()));
  });

  it('reports the pool and the process', async () => {
    const exposed = await metrics();
    expect(
      exposed.value('dmrv_db_pool_connections', { pool: 'primary', state: 'total' }),
    ).toBeGreaterThanOrEqual(1);
    expect(exposed.find('dmrv_db_pool_waiting_requests', { pool: 'primary' })).toHaveLength(1);
    expect(exposed.find('nodejs_eventloop_lag_seconds', { service: 'ussd-gateway' })).toHaveLength(1);
    expect(exposed.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
  });

  it('states its build, and asks PostgreSQL and Redis at each scrape whether they answer', async () => {
    const exposed = await metrics();
    expect(exposed.find('dmrv_build_info')).toEqual([
      expect.objectContaining({
        labels: expect.objectContaining({ version: '0.1.0', commit: 'unknown' }),
        value: 1,
      }),
    ]);
    expect([
      exposed.value('dmrv_ussd_dependency_up', { dependency: 'database' }),
      exposed.value('dmrv_ussd_dependency_up', { dependency: 'redis' }),
    ]).toEqual([1, 1]);
    // Through relays that can be cut: the pods stay up and ready while PostgreSQL is away, and only this says so.
    const postgres = await startTcpRelay(Number(new URL(backing.database.url).port));
    const redis = await startTcpRelay(Number(new URL(TEST_REDIS_URL).port || 6379));
    const { app: relayed } = await startApp(
      backing.env({
        METRICS_PORT: '0',
        DATABASE_URL: viaProxy(backing.database.url, { host: '127.0.0.1', port: postgres.port }),
        REDIS_URL: viaProxy(TEST_REDIS_URL, { host: '127.0.0.1', port: redis.port }),
      }),
    );
    const up = async () => {
      const scraped = await scrape(`http://127.0.0.1:${relayed.get(MetricsModule).listenerPort}/metrics`);
      return ['database', 'redis'].map((dependency) =>
        scraped.value('dmrv_ussd_dependency_up', { dependency }),
      );
    };
    try {
      expect(await up()).toEqual([1, 1]);
      await postgres.stop();
      expect(await up()).toEqual([0, 1]);
      await postgres.start();
      await redis.stop();
      expect(await up()).toEqual([1, 0]);
      await redis.start();
      await redisReady(relayed);
      expect(await up()).toEqual([1, 1]);
    } finally {
      await relayed.close();
      await postgres.close();
      await redis.close();
    }
  });

  it('exports every dmrv_ family docs/deployment.md lists for ussd-gateway, with its type and labels', async () => {
    expect(mismatchesWithDeploymentDoc(await metrics(), 'ussd-gateway')).toEqual([]);
  });
});
