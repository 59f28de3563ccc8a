import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { REGISTRY_PARAMETER_MAX_LENGTH } from '@dmrv/contracts';
import { TestDatabase } from '@dmrv/testing';
import { SqlReader } from '../src/database/sql-reader';
import { RegistryFixture } from './fixtures/registry-fixture';
import { get, startRegistryStack, stopRegistryStack } from './registry-test-kit';

/** A cursor as the service writes them (base64url JSON), holding whatever key the test wants to smuggle in. */
const cursor = (key: unknown[]): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

// Input that passed validation and then broke in PostgreSQL (NUL bytes, year 0, out-of-range keys) came back as an
// opaque 500. Each must be a 400 that names the parameter, decided before any SQL runs.
describe('registry-api bad input (400 naming the parameter, never a database error)', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_badinput', {
      RATE_LIMIT_PER_MINUTE: '0',
    }));
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  async function expect400(url: string, pattern: RegExp): Promise<void> {
    const response = await get(app, url, auth);
    expect({ url, status: response.statusCode, body: response.json<unknown>() }).toEqual({
      url,
      status: 400,
      body: { message: expect.stringMatching(pattern) as string },
    });
  }

  describe('text filters holding a NUL (PostgreSQL text cannot)', () => {
    it.each([
      ['/v1/households/stats?region=%00', /region/],
      ['/v1/households/stats?region=East%00Region', /region/],
      ['/v1/households/stove-stacking?region=%00', /region/],
      ['/v1/households/stove-stacking/list?region=%00', /region/],
      ['/v1/fuel-usage?region=%00', /region/],
      ['/v1/fuel/usage?region=%00', /region/],
      ['/v1/credits/transferred?sender=%00', /sender/],
      ['/v1/credits/transferred?recipient=%00', /recipient/],
      ['/v1/credits/transferred/list?sender=a%00', /sender/],
      ['/v1/credits/transferred/list?recipient=%00b', /recipient/],
    ])('%s', async (url, pattern) => {
      await expect400(url, pattern);
    });
  });

  describe('dates PostgreSQL cannot represent (there is no year 0)', () => {
    it.each([
      ['/v1/fuel-usage?from=0000-01-01', /from must be a date/],
      ['/v1/fuel-usage?to=0000-01-01', /to must be a date/],
      ['/v1/fuel-usage?household_id=household-001&from=0000-12-31', /from must be a date/],
      ['/v1/devices/status/list?from=0000-01-01', /from must be a date/],
      ['/v1/claims/fuel-purchase/list?to=0000-01-01', /to must be a date/],
      ['/v1/devices/status/list?updated_since=0000-01-01T00:00:00Z', /updated_since/],
      ['/v1/claims/fuel-purchase/list?updated_since=0000-12-31T23:59:59%2B01:00', /updated_since/],
      ['/v1/claims/fuel-purchase/list?updated_since=2024-01-01T00:00:00%2B99:00', /updated_since/],
      ['/v1/claims/fuel-purchase/list?updated_since=2024-02-30T00:00:00Z', /updated_since/],
      ['/v1/claims/fuel-purchase/list?updated_since=2024-01-01T24:00:00Z', /updated_since/],
    ])('%s', async (url, pattern) => {
      await expect400(url, pattern);
    });
  });

  describe('cursors that decode but hold a key the collection cannot have', () => {
    it.each([
      ['an impossible date', '/v1/claims/fuel-purchase/list', ['2024-13-45', 'purchase-001-01-17', 5]],
      ['year 0', '/v1/claims/fuel-purchase/list', ['0000-01-01', 'purchase-001-01-17', 5]],
      ['a NUL in a text id', '/v1/claims/fuel-purchase/list', ['2024-01-17', 'purchase\u0000', 5]],
      ['a NUL in a device id', '/v1/devices/status/list', ['1717230600000000', 'device\u0000', 5]],
      ['a timestamp beyond PostgreSQL', '/v1/devices/status/list', ['999999999999999999', 'device-001', 5]],
      ['a timestamp before PostgreSQL', '/v1/devices/status/list', ['-999999999999999999', 'device-001', 5]],
      ['a negative event id', '/v1/credits/transferred/list', ['2024-02-01', -1, 5]],
      ['an event id beyond bigint', '/v1/credits/transferred/list', ['2024-02-01', '9999999999999999999', 5]],
      ['a negative total', '/v1/credits/retired/list', ['2024-02-01', 1, -5]],
      ['a fractional total', '/v1/credits/retired/list', ['2024-02-01', 1, 2.5]],
      ['a date where an id belongs', '/v1/claims/household-onboarding/list', ['2024-01-10', '', 5]],
      ['a number for a date', '/v1/claims/emission-reduction/list', [20240101, 'x', 5]],
      ['a NUL in a combination', '/v1/households/stove-stacking/list', ['LPG\u0000']],
    ])('%s', async (_label, path, key) => {
      await expect400(`${path}?cursor=${cursor(key)}`, /cursor/);
    });
  });

  describe('parameter names', () => {
    it.each(['__proto__', 'constructor', 'foo', 'prototype', 'hasOwnProperty', 'toString'])(
      '?%s=x is unknown like any other name',
      async (name) => {
        for (const path of [
          '/v1/households/stats',
          '/v1/devices/status',
          '/v1/devices/status/list',
          '/v1/credits/issued?project_id=project-a&time_period=2024',
        ]) {
          const separator = path.includes('?') ? '&' : '?';
          await expect400(`${path}${separator}${name}=x`, new RegExp(`^property ${name} should not exist$`));
        }
      },
    );

    it('?__proto__[x]=y and a repeated __proto__ are refused too', async () => {
      await expect400('/v1/households/stats?__proto__[region]=x', /__proto__/);
      await expect400('/v1/households/stats?__proto__=a&__proto__=b', /__proto__/);
    });
  });

  // Issue 32: 5,200 valid 15 KB query strings took the heap from 38 to 280 MiB. Every string parameter of every
  // operation has a documented maximum length, refused past it before any SQL (and before anything is remembered).
  describe('values longer than their documented maximum', () => {
    type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking the document
    /** The bounds of the original getIssuedCredits parameters, whose schemas stay the original's. */
    const ORIGINAL_BOUNDS: Record<string, number> = {
      project_id: REGISTRY_PARAMETER_MAX_LENGTH.identifier,
      time_period: REGISTRY_PARAMETER_MAX_LENGTH.period,
    };

    async function boundedParameters(): Promise<
      Array<{ path: string; name: string; max: number; base: string }>
    > {
      const document = (await get(app, '/v1/openapi.json')).json<Json>();
      return Object.entries(document.paths as Json).flatMap(([path, item]) => {
        const parameters = ((item as Json).get.parameters ?? []) as Json[];
        const required = parameters.filter((parameter) => parameter.required);
        return parameters
          .filter((parameter) => parameter.schema.type === 'string')
          .map((parameter) => ({
            path: `/v1${path}`,
            name: parameter.name as string,
            max:
              (parameter.schema.maxLength as number | undefined) ??
              ORIGINAL_BOUNDS[parameter.name as string] ??
              NaN,
            // Required parameters other than the one under test get a valid value.
            base: required
              .filter((other) => other.name !== parameter.name)
              .map((other) => `${other.name}=${other.name === 'time_period' ? '2024' : 'project-a'}`)
              .join('&'),
          }));
      });
    }

    it('answers 400 "<name> must be at most <n> characters" for every one, without a single SQL statement', async () => {
      await get(app, '/v1/households/stats', auth); // the client is known and cached from here on
      const reader = app.get(SqlReader);
      const statements = [jest.spyOn(reader, 'query'), jest.spyOn(reader, 'queryPrimary')];
      try {
        const cases = await boundedParameters();
        expect(cases.length).toBeGreaterThan(60);
        const answers = [];
        for (const { path, name, max, base } of cases) {
          const response = await get(
            app,
            `${path}?${base}${base ? '&' : ''}${name}=${'a'.repeat(max + 1)}`,
            auth,
          );
          answers.push({ path, name, status: response.statusCode, body: response.json<unknown>() });
        }
        expect(answers).toEqual(
          cases.map(({ path, name, max }) => ({
            path,
            name,
            status: 400,
            body: { message: `${name} must be at most ${max} characters` },
          })),
        );
        expect(statements.map((spy) => spy.mock.calls.length)).toEqual([0, 0]);
      } finally {
        for (const spy of statements) spy.mockRestore();
      }
    });

    it('refuses the 15 KB identifiers of the attack in every parameter that takes one', async () => {
      const long = `household-${'x'.repeat(15_000)}`;
      for (const [url, message] of [
        [`/v1/fuel-usage?household_id=${long}`, 'household_id must be at most 100 characters'],
        [`/v1/devices/status?household_id=${long}`, 'household_id must be at most 100 characters'],
        [`/v1/devices/status/list?device_id=${long}`, 'device_id must be at most 100 characters'],
        [
          `/v1/claims/household-onboarding/list?household_id=${long}&project_id=${long}`,
          'project_id must be at most 100 characters; household_id must be at most 100 characters',
        ],
      ]) {
        const response = await get(app, url!, auth);
        expect({
          url: url!.slice(0, 40),
          status: response.statusCode,
          body: response.json<unknown>(),
        }).toEqual({
          url: url!.slice(0, 40),
          status: 400,
          body: { message },
        });
      }
    });
  });
});
