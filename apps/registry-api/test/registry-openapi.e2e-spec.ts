import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { runMigrations } from '../src/database/data-source';
import { createDataSource } from '../src/database/data-source';
import { createClient } from '../src/cli/clients';
import { buildOpenApiDocument } from '../src/registry-openapi';
import { get, startApp } from './registry-test-kit';

// The original contract, transcribed from spec/registry-data-api.md (resources table and endpoints table).
const S = (format?: string) => ({ type: 'string', ...(format ? { format } : {}) });
const I = { type: 'integer' };
const N = (format?: string) => ({ type: 'number', ...(format ? { format } : {}) });

const SPEC_SCHEMAS: Record<string, { properties: Record<string, object>; required?: string[] }> = {
  HouseholdStats: { properties: { total_households: I, density: { type: 'object' } } },
  StoveStacking: { properties: { fuel_type: S(), percentage: N('float') } },
  DeviceStatus: { properties: { device_id: S(), status: S(), last_active: S('date-time') } },
  FuelUsage: { properties: { household_id: S(), fuel_consumed: N(), region: S() } },
  CreditsIssued: { properties: { project_id: S(), time_period: S(), credits: I } },
  CreditsCancelled: { properties: { credit_id: S(), cancellation_date: S('date') } },
  CreditsTransferred: { properties: { sender: S(), recipient: S(), amount: I, transfer_date: S('date') } },
  CreditsRetired: { properties: { credit_id: S(), retirement_date: S('date'), emission_reductions: I } },
  FuelPurchaseClaim: { properties: { fuel_id: S(), amount: N('float'), purchase_date: S('date') } },
  FuelDeliveryClaim: {
    properties: { delivery_id: S(), delivery_date: S('date'), delivered_quantity: N('float') },
  },
  EmissionReductionClaim: { properties: { project_id: S(), period: S(), reductions: I } },
  HouseholdOnboardingClaim: {
    properties: { household_id: S(), onboarding_date: S('date') },
    required: ['household_id', 'onboarding_date'],
  },
  Error: { properties: { message: S() } },
};

const SPEC_OPERATIONS: Array<[path: string, operationId: string, schema: string, tag: string]> = [
  ['/households/stats', 'getHouseholdStats', 'HouseholdStats', 'Household Information'],
  ['/households/stove-stacking', 'getStoveStackingData', 'StoveStacking', 'Household Information'],
  ['/devices/status', 'getDeviceStatus', 'DeviceStatus', 'Device Monitoring'],
  ['/fuel-usage', 'getFuelUsage', 'FuelUsage', 'Fuel Management'],
  ['/credits/issued', 'getIssuedCredits', 'CreditsIssued', 'Carbon Credits'],
  ['/credits/cancelled', 'getCancelledCredits', 'CreditsCancelled', 'Carbon Credits'],
  ['/credits/transferred', 'getTransferredCredits', 'CreditsTransferred', 'Carbon Credits'],
  ['/credits/retired', 'getRetiredCredits', 'CreditsRetired', 'Carbon Credits'],
  ['/claims/fuel-purchase', 'getFuelPurchaseClaims', 'FuelPurchaseClaim', 'Claims Management'],
  ['/claims/fuel-delivery', 'getFuelDeliveryClaims', 'FuelDeliveryClaim', 'Claims Management'],
  ['/claims/emission-reduction', 'getEmissionReductionClaims', 'EmissionReductionClaim', 'Claims Management'],
  [
    '/claims/household-onboarding',
    'getHouseholdOnboardingClaims',
    'HouseholdOnboardingClaim',
    'Claims Management',
  ],
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an arbitrary JSON document

function refs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refs(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refs(value, found);
    }
  }
  return found;
}

describe('registry-api OpenAPI document', () => {
  let database: TestDatabase;
  let app: NestFastifyApplication;
  let prefixed: NestFastifyApplication;
  let document: Json;
  let authorization: string;

  beforeAll(async () => {
    database = await createTestDatabase('registry_openapi');
    await runMigrations(database.url);
    const dataSource = await createDataSource(database.url, 1).initialize();
    authorization = `Bearer ${(await createClient(dataSource, 'openapi')).bearerKey}`;
    await dataSource.destroy();
    app = await startApp({ DATABASE_URL: database.url });
    prefixed = await startApp({ DATABASE_URL: database.url, API_BASE_PATH_PREFIX: '/emerging-platform' });
    document = (await get(app, '/v1/openapi.json')).json<Json>();
  });

  afterAll(async () => {
    await app?.close();
    await prefixed?.close();
    await database?.drop();
  });

  it('is the original OpenAPI 3.0.3 "Emerging Platform API" 1.0.0 with our server and security schemes', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(document.info).toMatchObject({ title: 'Emerging Platform API', version: '1.0.0' });
    expect(document.servers).toEqual([{ url: '/v1' }]);
    expect(document.components.securitySchemes).toEqual({
      basicAuth: expect.objectContaining({ type: 'http', scheme: 'basic' }),
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: '<client_id>.<secret>',
        description:
          'Authorization: Bearer <client_id>.<secret>: the client id and the secret that `cli.js clients create` ' +
          'printed, joined by a dot (e.g. Bearer rc_0123456789abcdef.<43 characters>). A colon joins them only in ' +
          'HTTP Basic; a Bearer key in any other form is answered 401 with the expected form.',
      },
    });
    expect(document.security).toEqual([{ basicAuth: [] }, { bearerAuth: [] }]);
    expect(document.tags.map((tag: Json) => tag.name)).toEqual([
      'Household Information',
      'Device Monitoring',
      'Fuel Management',
      'Carbon Credits',
      'Claims Management',
      'System Health',
    ]);
  });

  it.each(SPEC_OPERATIONS)('keeps GET %s as %s returning %s', (path, operationId, schema, tag) => {
    const operation = document.paths[path]?.get as Json;
    expect(operation).toBeDefined();
    expect(Object.keys(document.paths[path] as Json)).toEqual(['get']);
    expect(operation.operationId).toBe(operationId);
    expect(operation.tags).toEqual([tag]);
    expect(operation.responses['200'].content).toEqual({
      'application/json': { schema: { $ref: `#/components/schemas/${schema}` } },
    });
    for (const status of ['400', '401']) {
      expect(operation.responses[status].content).toEqual({
        'application/json': { schema: { $ref: '#/components/schemas/Error' } },
      });
    }
    const parameters = (operation.parameters ?? []) as Json[];
    if (operationId === 'getIssuedCredits') {
      expect(parameters.map((p) => [p.name, p.in, p.required, p.schema, p.style ?? 'form'])).toEqual([
        ['project_id', 'query', true, { type: 'string' }, 'form'],
        ['time_period', 'query', true, { type: 'string' }, 'form'],
      ]);
    } else {
      // Anything beyond the original is optional and says so.
      for (const parameter of parameters)
        expect(parameter).toMatchObject({ in: 'query', required: false, 'x-extension': true });
    }
    for (const [status, response] of Object.entries(operation.responses as Json)) {
      if (!['200', '400', '401'].includes(status)) expect(response['x-extension']).toBe(true);
    }
  });

  it.each(Object.entries(SPEC_SCHEMAS))('keeps the schema %s field for field', (name, expected) => {
    const schema = document.components.schemas[name] as Json;
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(Object.keys(expected.properties));
    for (const [field, type] of Object.entries(expected.properties)) {
      const actual = schema.properties[field] as Json;
      expect({ field, type: actual.type, format: actual.format }).toEqual({
        field,
        format: undefined,
        ...type,
      });
    }
    expect(schema.required).toEqual(expected.required);
  });

  it('keeps the density sub-object with low, medium and high integers', () => {
    const density = document.components.schemas.HouseholdStats.properties.density as Json;
    expect(
      Object.fromEntries(Object.entries(density.properties as Json).map(([k, v]) => [k, (v as Json).type])),
    ).toEqual({
      low: 'integer',
      medium: 'integer',
      high: 'integer',
    });
  });

  it('marks every path beyond the original 12 (except the System Health hello) as an extension', () => {
    const original = new Set(SPEC_OPERATIONS.map(([path]) => path));
    const extra = Object.keys(document.paths as Json).filter(
      (path) => !original.has(path) && path !== '/hello',
    );
    expect(extra.length).toBeGreaterThan(0);
    for (const path of extra) {
      // The collection views, /fuel/usage (the spelling of /fuel-usage in part of the published docs), the signing keys.
      if (path !== '/fuel/usage' && path !== '/jwks.json') expect(path).toMatch(/\/list$/);
      expect(document.paths[path].get['x-extension']).toBe(true);
    }
    expect(document.paths['/hello'].get.security).toEqual([]);
  });

  it('is the document generated from the controllers without starting the service (what scripts and tests use)', async () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(await buildOpenApiDocument('/v1'))));
  });

  it('is public, with the JSON content type', async () => {
    const response = await get(app, '/v1/openapi.json');
    expect({ status: response.statusCode, type: response.headers['content-type'] }).toEqual({
      status: 200,
      type: expect.stringMatching(/^application\/json/),
    });
  });

  it('resolves every $ref', () => {
    for (const ref of refs(document)) {
      const name = ref.replace('#/components/schemas/', '');
      expect({ ref, found: name in document.components.schemas }).toEqual({ ref, found: true });
    }
  });

  it('serves the API, its documents and its hello under a configured prefix; health stays at the root', async () => {
    const served = (await get(prefixed, '/emerging-platform/v1/openapi.json')).json<Json>();
    expect(served.servers).toEqual([{ url: '/emerging-platform/v1' }]);
    expect((await get(prefixed, '/emerging-platform/v1/api-docs')).statusCode).toBe(200);
    expect((await get(prefixed, '/emerging-platform/v1/hello')).statusCode).toBe(200);
    expect((await get(prefixed, '/emerging-platform/v1/households/stats', { authorization })).json()).toEqual(
      {
        total_households: 0,
        density: { low: 0, medium: 0, high: 0 },
      },
    );
    expect((await get(prefixed, '/v1/households/stats', { authorization })).statusCode).toBe(404);
    expect((await get(prefixed, '/health')).statusCode).toBe(200);
  });

  it('answers an unknown path with 404 {message}', async () => {
    const response = await get(app, '/v1/nothing-here', { authorization });
    expect(response.statusCode).toBe(404);
    expect(Object.keys(response.json<object>())).toEqual(['message']);
  });
});
