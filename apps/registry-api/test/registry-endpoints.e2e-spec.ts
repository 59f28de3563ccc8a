import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { bearerKey } from '../src/auth/credentials';
import { createClient, revokeClient } from '../src/cli/clients';
import {
  basicAuth,
  BLOCKS,
  CONSUMPTION,
  DELIVERIES,
  DEVICES,
  EVENTS,
  FixtureEvent,
  HOUSEHOLDS,
  loadFixture,
  PROJECTS,
  PURCHASES,
  RegistryFixture,
} from './fixtures/registry-fixture';
import {
  changesApplied,
  get,
  schemaValidators,
  startApp,
  startRegistryStack,
  stopRegistryStack,
} from './registry-test-kit';

// Expected values are computed here from the fixture arrays with plain loops; nothing below imports the app's
// domain code.

const FUEL_ORDER = ['LPG', 'Electricity', 'Ethanol', 'Biogas', 'Kerosene', 'Charcoal', 'Biomass'];
const QUARTERS: Record<string, [string, string]> = {
  '2024-Q1': ['2024-01-01', '2024-03-31'],
  '2024-Q2': ['2024-04-01', '2024-06-30'],
  '2024-Q3': ['2024-07-01', '2024-09-30'],
  '2024': ['2024-01-01', '2024-12-31'],
  '2024-03': ['2024-03-01', '2024-03-31'],
};

const householdById = new Map(HOUSEHOLDS.map((h) => [h.id, h]));
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

function expectedStats(filter: { region?: string; project?: string }) {
  const density = { low: 0, medium: 0, high: 0 };
  for (const h of HOUSEHOLDS) {
    if (filter.region && h.region !== filter.region) continue;
    if (filter.project && h.project !== filter.project) continue;
    density[h.density] += 1;
  }
  return { total_households: density.low + density.medium + density.high, density };
}

function expectedCombinations(filter: { region?: string; project?: string }): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const h of HOUSEHOLDS) {
    if (filter.region && h.region !== filter.region) continue;
    if (filter.project && h.project !== filter.project) continue;
    if (h.fuels.length === 0) continue;
    const name = [...h.fuels].sort((a, b) => FUEL_ORDER.indexOf(a) - FUEL_ORDER.indexOf(b)).join(' + ');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts.entries()];
}

function expectedStacking(filter: { region?: string; project?: string }, fuelType?: string) {
  const entries = expectedCombinations(filter);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const sorted = entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const chosen = fuelType ? (sorted.find(([name]) => name === fuelType) ?? [fuelType, 0]) : sorted[0]!;
  return { fuel_type: chosen[0], percentage: Math.round((chosen[1] / total) * 10000) / 100 };
}

function fuelSum(filter: {
  household?: string;
  region?: string;
  project?: string;
  from?: string;
  to?: string;
}): number {
  let sum = 0;
  for (const c of CONSUMPTION) {
    const h = householdById.get(c.household)!;
    if (filter.household && c.household !== filter.household) continue;
    if (filter.region && h.region !== filter.region) continue;
    if (filter.project && h.project !== filter.project) continue;
    if (filter.from && c.day < filter.from) continue;
    if (filter.to && c.day > filter.to) continue;
    sum += c.kg;
  }
  return round3(sum);
}

function expectedReductions(projectId: string, from: string, to: string): number {
  const p = PROJECTS.find((project) => project.id === projectId)!;
  const tonnes = fuelSum({ project: projectId, from, to }) / 1000;
  return Math.floor(tonnes * p.ncv * (p.fnrb * p.efCo2 + p.efNonCo2));
}

function creditsIssued(projectId: string, from: string, to: string): number {
  return EVENTS.filter((e) => e.kind === 'issued' && e.day >= from && e.day <= to)
    .filter((e) => BLOCKS.find((b) => b.id === e.block)!.project === projectId)
    .reduce((sum, e) => sum + e.quantity, 0);
}

/** Most recent by date, ties by the highest id (events: the later insertion). */
function latest<T>(rows: T[], date: (row: T) => string, id: (row: T) => string | number): T {
  return [...rows].sort((a, b) =>
    date(a) === date(b) ? (id(a) < id(b) ? 1 : -1) : date(a) < date(b) ? 1 : -1,
  )[0]!;
}

function latestEvent(
  kind: FixtureEvent['kind'],
  filter: (e: FixtureEvent) => boolean = () => true,
): FixtureEvent {
  const indexed = EVENTS.map((event, index) => ({ event, index })).filter(
    ({ event }) => event.kind === kind && filter(event),
  );
  return latest(
    indexed,
    (x) => x.event.day,
    (x) => x.index,
  ).event;
}

describe('registry-api endpoints (HTTP against bootstrap(), real PostgreSQL)', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;
  let validator: ReturnType<typeof schemaValidators>;

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_endpoints'));
    const document = await get(app, '/v1/openapi.json');
    validator = schemaValidators(document.json());
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  async function ok<T>(url: string, schema: string): Promise<T> {
    const response = await get(app, url, auth);
    expect({ url, status: response.statusCode, body: response.body }).toEqual({
      url,
      status: 200,
      body: response.body,
    });
    const body = response.json<T>();
    const validate = validator(schema);
    expect({ url, valid: validate(body), errors: validate.errors ?? null }).toEqual({
      url,
      valid: true,
      errors: null,
    });
    return body;
  }

  async function fails(url: string, status: number, messagePattern: RegExp, headers = auth): Promise<void> {
    const response = await get(app, url, headers);
    expect({ url, status: response.statusCode }).toEqual({ url, status });
    const body = response.json<{ message: unknown }>();
    expect(Object.keys(body)).toEqual(['message']);
    expect(typeof body.message).toBe('string');
    expect(body.message).toMatch(messagePattern);
    expect(validator('Error')(body)).toBe(true);
  }

  describe('aggregates, checked against values computed from the fixture', () => {
    it.each([
      ['', {}],
      ['?region=East%20Region', { region: 'East Region' }],
      ['?project_id=project-b', { project: 'project-b' }],
      ['?project_id=project-a&region=West%20Region', { project: 'project-a', region: 'West Region' }],
    ])('GET /v1/households/stats%s', async (query, filter) => {
      expect(await ok(`/v1/households/stats${query}`, 'HouseholdStats')).toEqual(expectedStats(filter));
    });

    it.each([
      ['', {}, undefined],
      ['?region=East%20Region', { region: 'East Region' }, undefined],
      ['?project_id=project-b', { project: 'project-b' }, undefined],
      ['?fuel_type=LPG%20%2B%20Biomass', {}, 'LPG + Biomass'],
      ['?fuel_type=biomass%2Blpg', {}, 'LPG + Biomass'],
      ['?fuel_type=Charcoal,Electricity', {}, 'Electricity + Charcoal'],
      ['?fuel_type=Ethanol', {}, 'Ethanol'],
    ])('GET /v1/households/stove-stacking%s', async (query, filter, fuelType) => {
      expect(await ok(`/v1/households/stove-stacking${query}`, 'StoveStacking')).toEqual(
        expectedStacking(filter, fuelType),
      );
    });

    it('breaks a tie for the most common combination by name and writes fuels in the fixed order', async () => {
      const body = await ok<{ fuel_type: string; percentage: number }>(
        '/v1/households/stove-stacking',
        'StoveStacking',
      );
      // Fixture: "Charcoal" and "LPG + Biomass" have three households each, out of seven with recorded fuels.
      expect(body).toEqual({ fuel_type: 'Charcoal', percentage: 42.86 });
    });

    it.each([
      ['', {}, (body: object) => expect(Object.keys(body)).toEqual(['fuel_consumed'])],
      ['?household_id=household-001', { household: 'household-001' }, null],
      ['?region=North%20Region', { region: 'North Region' }, null],
      ['?from=2024-02-01&to=2024-03-31', { from: '2024-02-01', to: '2024-03-31' }, null],
      ['?region=East%20Region&from=2024-03-01', { region: 'East Region', from: '2024-03-01' }, null],
      ['?project_id=project-a&to=2024-01-31', { project: 'project-a', to: '2024-01-31' }, null],
      ['?household_id=household-005&to=2024-04-30', { household: 'household-005', to: '2024-04-30' }, null],
    ])('GET /v1/fuel-usage%s', async (query, filter: Parameters<typeof fuelSum>[0], extra) => {
      const body = await ok<Record<string, unknown>>(`/v1/fuel-usage${query}`, 'FuelUsage');
      expect(body.fuel_consumed).toBe(fuelSum(filter));
      if (filter.household) {
        expect(body).toEqual({
          household_id: filter.household,
          fuel_consumed: fuelSum(filter),
          region: householdById.get(filter.household)!.region,
        });
      } else if (filter.region) {
        expect(body).toEqual({ fuel_consumed: fuelSum(filter), region: filter.region });
      } else {
        expect(body).toEqual({ fuel_consumed: fuelSum(filter) });
      }
      extra?.(body);
    });

    it('serves fuel usage at /fuel/usage too, as part of the published docs spell it', async () => {
      expect(await ok('/v1/fuel/usage?household_id=household-002', 'FuelUsage')).toEqual(
        await ok('/v1/fuel-usage?household_id=household-002', 'FuelUsage'),
      );
    });

    it.each([
      ['project-a', '2024-Q1'],
      ['project-a', '2024-Q2'],
      ['project-a', '2024'],
      ['project-a', '2024-03'],
      ['project-b', '2024-Q3'],
      ['project-b', '2024-Q1'],
    ])('GET /v1/credits/issued?project_id=%s&time_period=%s', async (projectId, period) => {
      const [from, to] = QUARTERS[period]!;
      expect(
        await ok(`/v1/credits/issued?project_id=${projectId}&time_period=${period}`, 'CreditsIssued'),
      ).toEqual({
        project_id: projectId,
        time_period: period,
        credits: creditsIssued(projectId, from, to),
      });
    });

    it('answers 0 credits for a period without issuance', async () => {
      expect(
        await ok('/v1/credits/issued?project_id=project-a&time_period=2023-Q4', 'CreditsIssued'),
      ).toEqual({
        project_id: 'project-a',
        time_period: '2023-Q4',
        credits: 0,
      });
    });

    it.each([
      ['project-a', '2024-Q1'],
      ['project-a', '2024-Q2'],
      ['project-b', '2024-Q2'],
      ['project-b', '2024'],
      ['project-a', '2024-03'],
    ])('GET /v1/claims/emission-reduction?project_id=%s&period=%s', async (projectId, period) => {
      const [from, to] = QUARTERS[period]!;
      const expected = expectedReductions(projectId, from, to);
      expect(expected).toBeGreaterThan(0);
      expect(
        await ok(
          `/v1/claims/emission-reduction?project_id=${projectId}&period=${period}`,
          'EmissionReductionClaim',
        ),
      ).toEqual({
        project_id: projectId,
        period,
        reductions: expected,
      });
    });

    it('accepts time_period as a synonym of period on the claims endpoint', async () => {
      expect(
        await ok(
          '/v1/claims/emission-reduction?project_id=project-a&time_period=2024-Q1',
          'EmissionReductionClaim',
        ),
      ).toEqual({
        project_id: 'project-a',
        period: '2024-Q1',
        reductions: expectedReductions('project-a', '2024-01-01', '2024-03-31'),
      });
    });

    it('answers the latest stored quarterly claim without parameters, with the same number as the computation', async () => {
      // Quarters with fuel data: project-b's 2024-Q3 ends last.
      expect(await ok('/v1/claims/emission-reduction', 'EmissionReductionClaim')).toEqual({
        project_id: 'project-b',
        period: '2024-Q3',
        reductions: expectedReductions('project-b', '2024-07-01', '2024-09-30'),
      });
      expect(
        await ok('/v1/claims/emission-reduction?project_id=project-a', 'EmissionReductionClaim'),
      ).toEqual({
        project_id: 'project-a',
        period: '2024-Q2',
        reductions: expectedReductions('project-a', '2024-04-01', '2024-06-30'),
      });
    });
  });

  describe('records: the most recent one, or the one the selectors name', () => {
    it('GET /v1/devices/status', async () => {
      const device = latest(
        DEVICES,
        (d) => d.lastActive,
        (d) => d.id,
      );
      expect(device.id).toBe('device-004');
      expect(await ok('/v1/devices/status', 'DeviceStatus')).toEqual({
        device_id: device.id,
        status: device.status,
        last_active: device.lastActive,
      });
      expect(await ok('/v1/devices/status?device_id=device-002', 'DeviceStatus')).toEqual({
        device_id: 'device-002',
        status: 'inactive',
        last_active: '2024-01-01T08:30:00.000Z',
      });
      expect(await ok('/v1/devices/status?household_id=household-006', 'DeviceStatus')).toMatchObject({
        device_id: 'device-005',
      });
      expect(await ok('/v1/devices/status?project_id=project-a', 'DeviceStatus')).toMatchObject({
        device_id: 'device-003',
      });
    });

    it('GET /v1/credits/cancelled', async () => {
      const event = latestEvent('cancelled');
      expect(await ok('/v1/credits/cancelled', 'CreditsCancelled')).toEqual({
        credit_id: event.block,
        cancellation_date: event.day,
      });
      expect(await ok('/v1/credits/cancelled?credit_id=credit-a-003', 'CreditsCancelled')).toEqual({
        credit_id: 'credit-a-003',
        cancellation_date: '2024-04-15',
      });
    });

    it('GET /v1/credits/transferred', async () => {
      const event = latestEvent('transferred');
      expect(event.block).toBe('credit-a-002');
      const expected = {
        sender: event.sender,
        recipient: event.recipient,
        amount: event.quantity,
        transfer_date: event.day,
      };
      expect(await ok('/v1/credits/transferred', 'CreditsTransferred')).toEqual(expected);
      expect(await ok('/v1/credits/transferred?sender=Developer%20B', 'CreditsTransferred')).toEqual({
        sender: 'Developer B',
        recipient: 'Buyer Two',
        amount: 30,
        transfer_date: '2024-05-05',
      });
      const first = latestEvent('transferred', (e) => e.recipient === 'Buyer One');
      expect(
        await ok(
          '/v1/credits/transferred?recipient=Buyer%20One&credit_id=credit-a-001',
          'CreditsTransferred',
        ),
      ).toEqual({
        sender: first.sender,
        recipient: first.recipient,
        amount: first.quantity,
        transfer_date: first.day,
      });
    });

    it('GET /v1/credits/retired', async () => {
      const event = latestEvent('retired');
      expect(await ok('/v1/credits/retired', 'CreditsRetired')).toEqual({
        credit_id: event.block,
        retirement_date: event.day,
        emission_reductions: event.quantity,
      });
      expect(await ok('/v1/credits/retired?credit_id=credit-a-001', 'CreditsRetired')).toEqual({
        credit_id: 'credit-a-001',
        retirement_date: '2024-03-01',
        emission_reductions: 60,
      });
    });

    it('GET /v1/claims/fuel-purchase', async () => {
      const purchase = latest(
        PURCHASES,
        (p) => p.day,
        (p) => p.id,
      );
      expect(await ok('/v1/claims/fuel-purchase', 'FuelPurchaseClaim')).toEqual({
        fuel_id: purchase.id,
        amount: purchase.kg,
        purchase_date: purchase.day,
      });
      const own = latest(
        PURCHASES.filter(
          (p) => p.household === 'household-003' && p.day <= '2024-06-30' && p.day >= '2024-04-01',
        ),
        (p) => p.day,
        (p) => p.id,
      );
      expect(
        await ok(
          '/v1/claims/fuel-purchase?household_id=household-003&time_period=2024-Q2',
          'FuelPurchaseClaim',
        ),
      ).toEqual({
        fuel_id: own.id,
        amount: own.kg,
        purchase_date: own.day,
      });
      const named = PURCHASES[5]!;
      expect(await ok(`/v1/claims/fuel-purchase?fuel_id=${named.id}`, 'FuelPurchaseClaim')).toEqual({
        fuel_id: named.id,
        amount: named.kg,
        purchase_date: named.day,
      });
    });

    it('GET /v1/claims/fuel-delivery', async () => {
      const delivery = latest(
        DELIVERIES,
        (d) => d.day,
        (d) => d.id,
      );
      expect(await ok('/v1/claims/fuel-delivery', 'FuelDeliveryClaim')).toEqual({
        delivery_id: delivery.id,
        delivery_date: delivery.day,
        delivered_quantity: delivery.kg,
      });
      expect(await ok('/v1/claims/fuel-delivery?delivery_id=delivery-002', 'FuelDeliveryClaim')).toEqual({
        delivery_id: 'delivery-002',
        delivery_date: '2024-03-01',
        delivered_quantity: 6.5,
      });
    });

    it('GET /v1/claims/household-onboarding', async () => {
      const household = latest(
        HOUSEHOLDS,
        (h) => h.onboarded,
        (h) => h.id,
      );
      expect(await ok('/v1/claims/household-onboarding', 'HouseholdOnboardingClaim')).toEqual({
        household_id: household.id,
        onboarding_date: household.onboarded,
      });
      expect(
        await ok('/v1/claims/household-onboarding?household_id=household-003', 'HouseholdOnboardingClaim'),
      ).toEqual({
        household_id: 'household-003',
        onboarding_date: '2024-02-01',
      });
    });

    it.each([
      '/v1/devices/status?device_id=device-999',
      '/v1/devices/status?device_id=device-001&project_id=project-b',
      '/v1/credits/cancelled?credit_id=credit-a-001',
      '/v1/credits/transferred?sender=Nobody',
      '/v1/credits/retired?credit_id=credit-zz',
      '/v1/claims/fuel-purchase?fuel_id=purchase-none',
      '/v1/claims/fuel-purchase?household_id=household-001&time_period=2023',
      '/v1/claims/fuel-delivery?delivery_id=delivery-999',
      '/v1/claims/household-onboarding?household_id=household-999',
      '/v1/claims/emission-reduction?project_id=project-zz',
      '/v1/claims/emission-reduction?project_id=project-zz&period=2024-Q1',
      '/v1/fuel-usage?household_id=household-999',
      '/v1/fuel-usage?household_id=household-001&region=North%20Region',
      '/v1/fuel-usage?region=Atlantis',
      '/v1/households/stats?region=Atlantis',
      '/v1/households/stats?project_id=project-zz',
      '/v1/households/stove-stacking?project_id=project-zz',
      '/v1/credits/issued?project_id=project-zz&time_period=2024-Q1',
    ])('404 {message} for a selector that matches nothing: %s', async (url) => {
      await fails(url, 404, /\S/);
    });
  });

  describe('400 {message} naming the parameter', () => {
    it.each([
      ['/v1/credits/issued', /project_id is required.*time_period is required/],
      ['/v1/credits/issued?project_id=project-a', /time_period is required/],
      ['/v1/credits/issued?time_period=2024-Q1', /project_id is required/],
      ['/v1/credits/issued?project_id=project-a&time_period=2024-Q5', /time_period must be a period/],
      ['/v1/credits/issued?project_id=project-a&time_period=Q1-2024', /time_period/],
      ['/v1/credits/issued?project_id=project-a&time_period=2024-Q1&time_period=2024-Q2', /time_period/],
      ['/v1/claims/emission-reduction?project_id=project-a&period=2024-13', /period must be a period/],
      ['/v1/claims/emission-reduction?period=2024-Q1', /project_id is required/],
      ['/v1/households/stats?foo=bar', /property foo should not exist/],
      ['/v1/devices/status?limit=5', /property limit should not exist/],
      ['/v1/households/stove-stacking?fuel_type=Wood', /fuel_type/],
      ['/v1/fuel-usage?from=2024-02-30', /from must be a date YYYY-MM-DD/],
      ['/v1/fuel-usage?from=2024-03-01&to=2024-02-01', /from must not be after to/],
      ['/v1/claims/fuel-purchase?household_id=a%20b', /household_id/],
      ['/v1/devices/status/list?limit=501', /limit must not be greater than 500/],
      ['/v1/devices/status/list?limit=0', /limit must be at least 1/],
      ['/v1/devices/status/list?limit=ten', /limit must be an integer/],
      ['/v1/devices/status/list?cursor=%%%', /cursor/],
      ['/v1/claims/fuel-purchase/list?cursor=WyJ4Il0', /cursor/],
      ['/v1/devices/status/list?updated_since=yesterday', /updated_since/],
    ])('%s', async (url, pattern) => {
      await fails(url, 400, pattern);
    });
  });

  describe('authentication', () => {
    it('401 with WWW-Authenticate and {message} without credentials, on every endpoint', async () => {
      for (const url of [
        '/v1/households/stats',
        '/v1/credits/issued?project_id=project-a&time_period=2024-Q1',
        '/v1/devices/status/list',
      ]) {
        const response = await get(app, url);
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Basic realm="registry".*Bearer/);
        expect(response.json()).toEqual({ message: 'Authentication required' });
      }
    });

    it('echoes the request id on errors too', async () => {
      const response = await get(app, '/v1/households/stats', { 'x-request-id': 'registry-e2e-0001' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-request-id']).toBe('registry-e2e-0001');
      expect(
        (
          await get(app, '/v1/devices/status?device_id=none', {
            ...auth,
            'x-request-id': 'registry-e2e-0002',
          })
        ).headers['x-request-id'],
      ).toBe('registry-e2e-0002');
    });

    it('authenticates before validating, so a stranger learns nothing about parameters', async () => {
      expect((await get(app, '/v1/credits/issued')).statusCode).toBe(401);
    });

    it.each([
      [
        'a wrong secret',
        () =>
          `Basic ${Buffer.from(`${fixture.client.clientId}:${fixture.client.secret.slice(0, -1)}x`).toString('base64')}`,
      ],
      [
        'an unknown client',
        () => `Basic ${Buffer.from(`rc_0000000000000000:${fixture.client.secret}`).toString('base64')}`,
      ],
      ['a malformed header', () => 'Basic not-base64!'],
      ['another scheme', () => 'Digest username="x"'],
      ['a bearer key with a wrong secret', () => `Bearer ${fixture.client.clientId}.wrong`],
    ])('401 for %s', async (_label, header) => {
      await fails('/v1/households/stats', 401, /credentials|Authentication/, { authorization: header() });
      expect(
        (await get(app, '/v1/households/stats', { authorization: header() })).headers['www-authenticate'],
      ).toBeDefined();
    });

    it.each([
      [
        "<client_id>:<secret> (Basic's separator)",
        () => `Bearer ${fixture.client.clientId}:${fixture.client.secret}`,
      ],
      ['a client id alone', () => `Bearer ${fixture.client.clientId}`],
      ['nothing after Bearer', () => 'Bearer'],
    ])('401 naming the Bearer form for a Bearer key of %s', async (_label, header) => {
      const response = await get(app, '/v1/households/stats', { authorization: header() });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/Bearer realm="registry"/);
      expect(response.json()).toEqual({
        message:
          'Malformed Bearer key: send Authorization: Bearer <client_id>.<secret>, the client id and the secret joined ' +
          'by a dot (a colon joins them only in HTTP Basic)',
      });
    });

    it('401 naming both forms for Basic credentials that cannot be read', async () => {
      const response = await get(app, '/v1/households/stats', { authorization: 'Basic not-base64!' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        message: 'Malformed credentials: send HTTP Basic client_id:secret or Bearer <client_id>.<secret>',
      });
    });

    it('accepts the same client as Bearer <client_id>.<secret>', async () => {
      const response = await get(app, '/v1/households/stats', {
        authorization: `Bearer ${bearerKey(fixture.client)}`,
      });
      expect(response.statusCode).toBe(200);
    });

    it('rejects a revoked client from the next request on, once the revocation has reached the service', async () => {
      const client = await createClient(fixture.dataSource, 'to be revoked');
      const header = { authorization: `Bearer ${client.bearerKey}` };
      expect((await get(app, '/v1/households/stats', header)).statusCode).toBe(200);
      expect(await revokeClient(fixture.dataSource, client.clientId)).toBe(true);
      await changesApplied(app);
      await fails('/v1/households/stats', 401, /Invalid or revoked credentials/, header);
      expect(await revokeClient(fixture.dataSource, client.clientId)).toBe(false);
    });

    it('leaves /v1/hello, /health, the OpenAPI document and Swagger UI open', async () => {
      expect((await get(app, '/v1/hello')).json()).toEqual({ message: expect.any(String) as string });
      const health = await get(app, '/health');
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
      // Probes are never cached: no validator to revalidate against, and no-store.
      expect(health.headers['cache-control']).toBe('no-store');
      expect(health.headers.etag).toBeUndefined();
      expect((await get(app, '/health/live')).headers['cache-control']).toBe('no-store');
      expect((await get(app, '/v1/openapi.json')).statusCode).toBe(200);
      const ui = await get(app, '/v1/api-docs');
      expect(ui.statusCode).toBe(200);
      expect(ui.body).toContain('swagger-ui');
    });
  });

  describe('HTTP caching', () => {
    it('sends ETag and Cache-Control on every 200 and 304 for a matching If-None-Match', async () => {
      for (const url of [
        '/v1/households/stats',
        '/v1/claims/fuel-purchase',
        '/v1/devices/status/list?limit=2',
      ]) {
        const first = await get(app, url, auth);
        expect(first.statusCode).toBe(200);
        const etag = first.headers.etag as string;
        expect(etag).toMatch(/^W\/".+"$/);
        expect(first.headers['cache-control']).toBe('private, max-age=30');
        const again = await get(app, url, { ...auth, 'if-none-match': etag });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(etag);
        expect((await get(app, url, { ...auth, 'if-none-match': 'W/"stale"' })).statusCode).toBe(200);
      }
    });

    it('gives different answers different tags', async () => {
      const a = await get(app, '/v1/households/stats?region=East%20Region', auth);
      const b = await get(app, '/v1/households/stats?region=West%20Region', auth);
      expect(a.headers.etag).not.toBe(b.headers.etag);
    });
  });
});

describe('registry-api rate limit', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    database = await createTestDatabase('registry_ratelimit');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '3' });
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('answers 429 {message} once a client exceeds its budget, counted across endpoints and per client', async () => {
    const auth = { authorization: basicAuth(fixture.client) };
    const responses = [];
    for (const url of [
      '/v1/households/stats',
      '/v1/devices/status',
      '/v1/fuel-usage',
      '/v1/credits/retired',
    ]) {
      responses.push(await get(app, url, auth));
    }
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 429]);
    expect(responses.map((response) => response.headers['x-ratelimit-remaining']).slice(0, 3)).toEqual([
      '2',
      '1',
      '0',
    ]);
    expect(responses[0]!.headers['x-ratelimit-limit']).toBe('3');
    const limited = await get(app, '/v1/households/stats', auth);
    expect(limited.statusCode).toBe(429);
    expect(Object.keys(limited.json<object>())).toEqual(['message']);
    expect(limited.headers['retry-after']).toBeDefined();

    const other = await createClient(fixture.dataSource, 'other');
    expect(
      (await get(app, '/v1/households/stats', { authorization: `Bearer ${other.bearerKey}` })).statusCode,
    ).toBe(200);
  });
});

describe('registry-api failed-authentication limit', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    database = await createTestDatabase('registry_authlimit');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url, AUTH_FAILURES_PER_MINUTE: '2' });
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('refuses an address with 429 and Retry-After after repeated wrong secrets, before hashing again', async () => {
    const wrong = { authorization: `Bearer ${fixture.client.clientId}.${'x'.repeat(43)}` };
    expect((await get(app, '/v1/households/stats', wrong)).statusCode).toBe(401);
    expect((await get(app, '/v1/households/stats', wrong)).statusCode).toBe(401);
    const refused = await get(app, '/v1/households/stats', wrong);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      message: expect.stringMatching(/Too many failed authentication attempts/) as string,
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The same address, even with good credentials, waits out the window: a guesser cannot tell a hit from a miss
    // (a client that had authenticated with this process before would pass: its secret needs no hash).
    expect(
      (await get(app, '/v1/households/stats', { authorization: basicAuth(fixture.client) })).statusCode,
    ).toBe(429);
    // Requests without credentials cost nothing and still get the plain 401 challenge.
    expect((await get(app, '/v1/households/stats')).statusCode).toBe(401);
  });
});
