import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ListOperationId, RegistryApiError, RegistryClient } from '@dmrv/registry-client';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { renderClient } from '../src/openapi/client-codegen';
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
import { get, openApiValidators, startApp } from './registry-test-kit';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking the served document

/** A request that names nothing on every operation that takes `project_id` (all but /hello). */
const UNKNOWN = { project_id: 'project-unknown' };

async function listening(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/v1`;
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

  beforeAll(async () => {
    database = await createTestDatabase('registry_client');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    zeroApp = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0', EMPTY_AS: 'zero' });
    const credentials = { clientId: fixture.client.clientId, secret: fixture.client.secret };
    baseUrl = await listening(app);
    client = new RegistryClient({ baseUrl, ...credentials });
    zeroClient = new RegistryClient({ baseUrl: await listening(zeroApp), ...credentials });
    document = (await get(app, '/v1/openapi.json')).json<Json>();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await zeroApp?.close();
    await fixture?.close();
    await database?.drop();
  });

  it('is the client the served document generates', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    expect(readFileSync(join(__dirname, '../../../libs/registry-client/src/generated.ts'), 'utf8')).toBe(
      renderClient(document),
    );
  });

  it('calls the original operations with typed queries', async () => {
    const stats = await client.getHouseholdStats();
    expect(stats).toEqual(
      (await get(app, '/v1/households/stats', { authorization: basicAuth(fixture.client) })).json(),
    );
    expect(stats.total_households).toBe(HOUSEHOLDS.length);
    await expect(client.getDeviceStatus({ device_id: 'device-002' })).resolves.toEqual({
      device_id: 'device-002',
      status: 'inactive',
      last_active: '2024-01-01T08:30:00.000Z',
    });
    await expect(
      client.getIssuedCredits({ project_id: 'project-a', time_period: '2024-Q1' }),
    ).resolves.toEqual({
      project_id: 'project-a',
      time_period: '2024-Q1',
      credits: 150,
    });
    await expect(client.getFuelUsageAtFuelPath({ region: 'East Region' })).resolves.toEqual(
      await client.getFuelUsage({ region: 'East Region' }),
    );
  });

  it('reports a refusal as RegistryApiError with the status and the message', async () => {
    const refused = client.getIssuedCredits({ project_id: 'project-a', time_period: '2024-Q5' });
    await expect(refused).rejects.toBeInstanceOf(RegistryApiError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: 'time_period must be a period YYYY-Q1…YYYY-Q4, YYYY or YYYY-MM',
    });
    await expect(client.getDeviceStatus({ device_id: 'device-999' })).rejects.toMatchObject({ status: 404 });
    const stranger = new RegistryClient({ baseUrl, clientId: 'rc_nobody', secret: 'x' });
    await expect(stranger.getHouseholdStats()).rejects.toMatchObject({ status: 401 });
  });

  it('pages a collection to its end with paginate(), in small pages, every item once', async () => {
    const purchases = [];
    for await (const purchase of client.paginate('listFuelPurchaseClaims', { limit: 7 }))
      purchases.push(purchase.fuel_id);
    expect(purchases).toHaveLength(PURCHASES.length);
    expect(new Set(purchases).size).toBe(PURCHASES.length);
    expect([...purchases].sort()).toEqual(PURCHASES.map((purchase) => purchase.id).sort());

    const devices = [];
    for await (const device of client.paginate('listDeviceStatus', {
      limit: 2,
      updated_since: '2000-01-01T00:00:00Z',
    }))
      devices.push(device.device_id);
    expect([...devices].sort()).toEqual(DEVICES.map((device) => device.id).sort());

    const transfers = [];
    for await (const transfer of client.paginate('listTransferredCredits', {
      sender: 'Developer A',
      limit: 1,
    }))
      transfers.push(transfer);
    expect(transfers).toHaveLength(
      EVENTS.filter((event) => event.kind === 'transferred' && event.sender === 'Developer A').length,
    );
  });

  it('pages a collection that is empty without a second request', async () => {
    const items = [];
    for await (const item of client.paginate('listCancelledCredits', { project_id: 'project-unknown' }))
      items.push(item);
    expect(items).toEqual([]);
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
        const operationId = operation.operationId as keyof RegistryClient & string;
        const query: Record<string, string> = {
          ...UNKNOWN,
          ...(operationId === 'getIssuedCredits' ? { time_period: '2024' } : {}),
        };
        const call = (target: RegistryClient) =>
          (target[operationId] as (query: object) => Promise<unknown>).call(target, query);
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
        (
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
          ] satisfies ListOperationId[]
        ).sort(),
      );
    });

    it('keeps the limit the page was asked with, and every other status as it was', async () => {
      await expect(zeroClient.listStoveStackingData({ ...UNKNOWN, limit: 5 })).resolves.toEqual({
        data: [],
        page_info: { next_cursor: null, has_more: false, limit: 5 },
        total_count: 0,
      });
      await expect(zeroClient.getHouseholdStats({ project_id: 'project-a' })).resolves.toEqual(
        await client.getHouseholdStats({ project_id: 'project-a' }),
      );
      await expect(
        zeroClient.getIssuedCredits({ project_id: 'project-a', time_period: 'soon' }),
      ).rejects.toMatchObject({ status: 400 });
      expect(
        (await get(zeroApp, '/v1/nothing-here', { authorization: basicAuth(fixture.client) })).statusCode,
      ).toBe(404);
      await expect(zeroClient.getHouseholdStats({ ...UNKNOWN })).resolves.toEqual({
        total_households: 0,
        density: { low: 0, medium: 0, high: 0 },
      });
    });
  });
});
