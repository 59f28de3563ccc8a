import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createRegistryClient,
  HttpError,
  MemoryResponseCache,
  NetworkError,
  type Page,
  type RegistryAnswer,
  type RegistryClient,
  TimeoutError,
} from '@dmrv/registry-client';
import { createTestDatabase, startFaultProxy, TestDatabase } from '@dmrv/testing';
import { ZERO_DATE, ZERO_DATE_TIME } from '../src/registry/empty-selections';
import {
  basicAuth,
  DEVICES,
  EVENTS,
  HOUSEHOLDS,
  loadFixture,
  PURCHASES,
  RegistryFixture,
} from './fixtures/registry-fixture';
import { closedPort, FrontServer, listening, unavailable } from './registry-client-kit';
import { get, openApiValidators, startApp } from './registry-test-kit';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking the served document
type PurchasePage = Page<RegistryAnswer<'/claims/fuel-purchase/list'>>;

/** A request that names nothing on every operation that takes `project_id` (all but /hello). */
const UNKNOWN = { project_id: 'project-unknown' };

async function pagesOf<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('@dmrv/registry-client against the real service', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let zeroApp: NestFastifyApplication;
  let client: RegistryClient;
  let zeroClient: RegistryClient;
  let document: Json;
  let baseUrl: string;
  let credentials: { clientId: string; secret: string };

  beforeAll(async () => {
    database = await createTestDatabase('registry_client');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    zeroApp = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0', EMPTY_AS: 'zero' });
    credentials = { clientId: fixture.client.clientId, secret: fixture.client.secret };
    baseUrl = await listening(app);
    client = createRegistryClient({ baseUrl, credentials });
    zeroClient = createRegistryClient({ baseUrl: await listening(zeroApp), credentials });
    document = (await get(app, '/v1/openapi.json')).json<Json>();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await zeroApp?.close();
    await fixture?.close();
    await database?.drop();
  });

  it('calls the routes with typed queries and answers as the service sends them', async () => {
    const stats = await client.get('/households/stats');
    expect(stats).toEqual(
      (await get(app, '/v1/households/stats', { authorization: basicAuth(fixture.client) })).json(),
    );
    expect(stats.total_households).toBe(HOUSEHOLDS.length);
    await expect(client.get('/devices/status', { query: { device_id: 'device-002' } })).resolves.toEqual({
      device_id: 'device-002',
      status: 'inactive',
      last_active: '2024-01-01T08:30:00.000Z',
    });
    await expect(
      client.get('/credits/issued', { query: { project_id: 'project-a', time_period: '2024-Q1' } }),
    ).resolves.toEqual({ project_id: 'project-a', time_period: '2024-Q1', credits: 150 });
    await expect(client.get('/fuel/usage', { query: { region: 'East Region' } })).resolves.toEqual(
      await client.get('/fuel-usage', { query: { region: 'East Region' } }),
    );
  });

  it('rejects an answer outside 2xx with an HttpError: the status, the API’s message, no retry hint', async () => {
    const refused = await client
      .get('/credits/issued', { query: { project_id: 'project-a', time_period: '2024-Q5' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    const { status, body, retryAfterMs, message } = refused as HttpError;
    expect({ status, body, retryAfterMs, message }).toEqual({
      status: 400,
      body: { message: 'time_period must be a period YYYY-Q1…YYYY-Q4, YYYY or YYYY-MM' },
      retryAfterMs: undefined,
      message: `GET ${baseUrl}/credits/issued?project_id=project-a&time_period=2024-Q5: 400 time_period must be a period YYYY-Q1…YYYY-Q4, YYYY or YYYY-MM`,
    });
    await expect(client.get('/devices/status', { query: { device_id: 'device-999' } })).rejects.toMatchObject(
      {
        status: 404,
      },
    );
    const stranger = createRegistryClient({ baseUrl, credentials: { clientId: 'rc_nobody', secret: 'x' } });
    await expect(stranger.get('/households/stats')).rejects.toMatchObject({ status: 401 });
  });

  it('pages a collection to its end, each page with its cursor and the next one, every item once', async () => {
    const pages: PurchasePage[] = await pagesOf(
      client.paginate('/claims/fuel-purchase/list', { pageSize: 7 }),
    );
    const ids = pages.flatMap((page) => page.data.data.map((purchase) => purchase.fuel_id));
    expect(ids).toHaveLength(PURCHASES.length);
    expect([...ids].sort()).toEqual(PURCHASES.map((purchase) => purchase.id).sort());
    expect(pages.length).toBe(Math.ceil(PURCHASES.length / 7));
    expect(pages[0]!.cursor).toBeNull();
    expect(pages.at(-1)!.nextCursor).toBeNull();
    for (const [index, page] of pages.slice(1).entries()) expect(page.cursor).toBe(pages[index]!.nextCursor);

    const devices = await pagesOf(
      client.paginate('/devices/status/list', {
        pageSize: 2,
        query: { updated_since: '2000-01-01T00:00:00Z' },
      }),
    );
    expect(devices.flatMap((page) => page.data.data.map((device) => device.device_id)).sort()).toEqual(
      DEVICES.map((device) => device.id).sort(),
    );

    const transfers = await pagesOf(
      client.paginate('/credits/transferred/list', { pageSize: 1, query: { sender: 'Developer A' } }),
    );
    expect(transfers.flatMap((page) => page.data.data)).toHaveLength(
      EVENTS.filter((event) => event.kind === 'transferred' && event.sender === 'Developer A').length,
    );
  });

  it('resumes a sync interrupted mid-way from its saved cursor: every item read exactly once', async () => {
    const read: string[] = [];
    let saved: string | null = null;
    for await (const page of client.paginate('/claims/fuel-purchase/list', { pageSize: 10 })) {
      read.push(...page.data.data.map((purchase) => purchase.fuel_id!));
      saved = page.nextCursor;
      if (read.length >= 30) break; // the job stops here (a deploy, a crash) with `saved` written down
    }
    expect([read.length, typeof saved]).toEqual([30, 'string']);
    const resumed = createRegistryClient({ baseUrl, credentials });
    for await (const page of resumed.paginate('/claims/fuel-purchase/list', { pageSize: 10, cursor: saved }))
      read.push(...page.data.data.map((purchase) => purchase.fuel_id!));
    expect(read).toHaveLength(PURCHASES.length);
    expect([...read].sort()).toEqual(PURCHASES.map((purchase) => purchase.id).sort());
  });

  it('pages a collection that is empty in one request', async () => {
    const pages = await pagesOf(
      client.paginate('/credits/cancelled/list', { query: { project_id: 'project-unknown' } }),
    );
    expect(pages.map((page) => [page.data.data, page.cursor, page.nextCursor])).toEqual([[[], null, null]]);
  });

  describe('retries, timeouts and network errors', () => {
    let front: FrontServer;
    let frontUrl: string;

    beforeAll(async () => {
      front = new FrontServer(new URL(baseUrl).origin);
      frontUrl = `${await front.start()}/v1`;
    });

    afterAll(() => front?.stop());

    it('a 503 with Retry-After (seconds, then an HTTP date) and then a 200 succeed in one call', async () => {
      const inThreeSeconds = new Date(Date.now() + 3_000).toUTCString();
      front.refuseNext(unavailable('1'), unavailable(inThreeSeconds));
      front.seen.length = 0;
      const started = Date.now();
      const stats = await createRegistryClient({ baseUrl: frontUrl, credentials }).get('/households/stats');
      expect(stats.total_households).toBe(HOUSEHOLDS.length);
      expect(front.seen).toEqual(Array(3).fill('GET /v1/households/stats'));
      // 1 s, then what was left of the date (to the whole second: more than 1 s).
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    });

    it('retries are bounded and can be switched off: the last 503 is an HttpError with its retry hint', async () => {
      front.refuseNext(unavailable('1'), unavailable('1'), unavailable('1'));
      front.seen.length = 0;
      const bounded = createRegistryClient({ baseUrl: frontUrl, credentials, retry: { retries: 1 } });
      const error = (await bounded.get('/households/stats').catch((caught: unknown) => caught)) as HttpError;
      expect([error instanceof HttpError, error.status, error.retryAfterMs, front.seen.length]).toEqual([
        true,
        503,
        1_000,
        2,
      ]);
      front.refuseNext(unavailable('30'));
      const none = createRegistryClient({ baseUrl: frontUrl, credentials, retry: false });
      await expect(none.get('/households/stats')).rejects.toMatchObject({
        status: 503,
        retryAfterMs: 30_000,
        body: { message: 'too many authentications in progress; retry later' },
      });
      front.refuseNext();
    });

    it('a refused connection is a NetworkError (after the retries)', async () => {
      const port = await closedPort();
      const nobody = createRegistryClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        credentials,
        retry: { minDelayMs: 10 },
      });
      const error = await nobody.get('/households/stats').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toBe(
        `GET http://127.0.0.1:${port}/v1/households/stats: no answer from the server (fetch failed: ECONNREFUSED)`,
      );
    });

    it('a slow answer is a TimeoutError past the default timeout, and within a longer per-call one succeeds', async () => {
      const proxy = await startFaultProxy(
        { port: (app.getHttpServer().address() as AddressInfo).port },
        { kind: 'delay', ms: 300 },
      );
      try {
        const slow = createRegistryClient({
          baseUrl: `http://127.0.0.1:${proxy.port}/v1`,
          credentials,
          timeoutMs: 100,
        });
        const error = await slow.get('/households/stats').catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(TimeoutError);
        expect((error as TimeoutError).timeoutMs).toBe(100);
        await expect(slow.get('/households/stats', { timeoutMs: 10_000 })).resolves.toMatchObject({
          total_households: HOUSEHOLDS.length,
        });
      } finally {
        await proxy.close();
      }
    });

    it("the caller's AbortSignal stops the call, a wait between retries included, with the signal's reason", async () => {
      front.refuseNext(unavailable('5'));
      const controller = new AbortController();
      const call = createRegistryClient({ baseUrl: frontUrl, credentials }).get('/households/stats', {
        signal: controller.signal,
      });
      const reason = new Error('the job was cancelled');
      setTimeout(() => controller.abort(reason), 50);
      await expect(call).rejects.toBe(reason);
      front.refuseNext();
    });
  });

  it('with a cache, asks again with If-None-Match and resolves a 304 to the kept answer', async () => {
    const statuses: number[] = [];
    const cached = createRegistryClient({
      baseUrl,
      credentials,
      cache: new MemoryResponseCache(),
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const first = await cached.get('/households/stats');
    const second = await cached.get('/households/stats');
    const other = await cached.get('/households/stats', { query: { project_id: 'project-a' } });
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expect(statuses).toEqual([200, 304, 200]);
  });

  describe('EMPTY_AS=zero', () => {
    const operations = (): Array<[string, Json]> =>
      Object.entries(document.paths as Json)
        .map(([path, item]) => [path, (item as Json).get as Json] as [string, Json])
        .filter(([, operation]) =>
          (operation.parameters as Json[] | undefined)?.some((parameter) => parameter.name === 'project_id'),
        );

    it('covers every documented operation but /hello and /jwks.json (which select nothing)', () => {
      expect(
        operations()
          .map(([, operation]) => operation.operationId as string)
          .sort(),
      ).toEqual(
        Object.values(document.paths as Json)
          .map((item) => (item as Json).get.operationId as string)
          .filter((id) => id !== 'getHello' && id !== 'getSigningKeys')
          .sort(),
      );
    });

    it('answers each selection that names nothing with 200 and the zero value of its 200 schema, where 404 mode says 404', async () => {
      const validators = openApiValidators(document as { components: { schemas: Record<string, unknown> } });
      const lists = new Set<string>();
      for (const [path, operation] of operations()) {
        const operationId = operation.operationId as string;
        const query: Record<string, string> = {
          ...UNKNOWN,
          ...(operationId === 'getIssuedCredits' ? { time_period: '2024' } : {}),
        };
        const call = (target: RegistryClient) => target.get(path as '/households/stats', { query });
        const zero = (await call(zeroClient)) as Json;
        const validate = validators.schema(
          operation.responses['200'].content['application/json'].schema as object,
        );
        expect({ path, valid: validate(zero), errors: validate.errors ?? null }).toEqual({
          path,
          valid: true,
          errors: null,
        });
        if ('page_info' in zero) {
          lists.add(operationId);
          // The record collections answer an empty page in both modes; the stove-stacking list checks its scope.
          expect({ path, zero }).toEqual({
            path,
            zero: { data: [], page_info: { next_cursor: null, has_more: false, limit: 50 }, total_count: 0 },
          });
          continue;
        }
        await expect(call(client)).rejects.toMatchObject({ status: 404 });
        for (const [field, value] of Object.entries(zero)) {
          const schema = (document.components.schemas as Json)[
            (operation.responses['200'].content['application/json'].schema.$ref as string).split('/').pop()!
          ].properties[field] as Json;
          const expected =
            schema.type === 'object'
              ? expect.any(Object)
              : schema.format === 'date'
                ? ZERO_DATE
                : schema.format === 'date-time'
                  ? ZERO_DATE_TIME
                  : schema.type === 'string'
                    ? ''
                    : 0;
          expect({ path, field, value }).toEqual({ path, field, value: expected });
        }
      }
      expect([...lists].sort()).toEqual(
        [
          'listStoveStackingData',
          'listDeviceStatus',
          'listCancelledCredits',
          'listTransferredCredits',
          'listRetiredCredits',
          'listFuelPurchaseClaims',
          'listFuelDeliveryClaims',
          'listEmissionReductionClaims',
          'listHouseholdOnboardingClaims',
        ].sort(),
      );
    });

    it('keeps the limit the page was asked with, and every other status as it was', async () => {
      await expect(
        zeroClient.get('/households/stove-stacking/list', { query: { ...UNKNOWN, limit: 5 } }),
      ).resolves.toEqual({
        data: [],
        page_info: { next_cursor: null, has_more: false, limit: 5 },
        total_count: 0,
      });
      const stats = { query: { project_id: 'project-a' } };
      await expect(zeroClient.get('/households/stats', stats)).resolves.toEqual(
        await client.get('/households/stats', stats),
      );
      await expect(
        zeroClient.get('/credits/issued', { query: { project_id: 'project-a', time_period: 'soon' } }),
      ).rejects.toMatchObject({ status: 400 });
      expect(
        (await get(zeroApp, '/v1/nothing-here', { authorization: basicAuth(fixture.client) })).statusCode,
      ).toBe(404);
      await expect(zeroClient.get('/households/stats', { query: UNKNOWN })).resolves.toEqual({
        total_households: 0,
        density: { low: 0, medium: 0, high: 0 },
      });
    });
  });
});
