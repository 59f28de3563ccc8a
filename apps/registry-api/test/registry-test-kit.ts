import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, type TestDatabase } from '@dmrv/testing';
import { bootstrap } from '../src/bootstrap';
import { ChangeListener } from '../src/database/change-listener';
import { RegistryRepository } from '../src/registry/registry.repository';
import { basicAuth, loadFixture, type RegistryFixture } from './fixtures/registry-fixture';

export interface TestResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json<T = unknown>(): T;
}

export async function startApp(env: Record<string, string>): Promise<NestFastifyApplication> {
  const { app } = await bootstrap({ LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  // The listener connects in the background; tests start from a settled state (live, or not available).
  await app.get(ChangeListener).started();
  return app;
}

/** A test file's registry: a throwaway database holding the fixture, the app on it, the fixture client's credentials. */
export interface RegistryStack {
  database: TestDatabase;
  fixture: RegistryFixture;
  app: NestFastifyApplication;
  auth: Record<string, string>;
}

export async function startRegistryStack(
  label: string,
  env: Record<string, string> = {},
): Promise<RegistryStack> {
  const database = await createTestDatabase(label);
  let fixture: RegistryFixture | undefined;
  try {
    fixture = await loadFixture(database.url);
    const app = await startApp({ DATABASE_URL: database.url, ...env });
    return { database, fixture, app, auth: { authorization: basicAuth(fixture.client) } };
  } catch (error) {
    await stopRegistryStack({ fixture, database });
    throw error;
  }
}

/** Closes what a test file started, in reverse order; parts that never started are skipped. */
export async function stopRegistryStack(parts: Partial<RegistryStack>): Promise<void> {
  await parts.app?.close();
  await parts.fixture?.close();
  await parts.database?.drop();
}

/** Waits until every change committed so far has reached the app's in-memory caches. */
export function changesApplied(app: NestFastifyApplication): Promise<void> {
  return app.get(ChangeListener).synchronize();
}

export async function get(
  app: NestFastifyApplication,
  url: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const response = await app.inject({ method: 'GET', url, headers });
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    body: response.body,
    json: <T>() => JSON.parse(response.body) as T,
  };
}

/** GET that must answer 200; the url is part of the expectation, so a failure names the request. */
export async function getOk(
  app: NestFastifyApplication,
  url: string,
  headers: Record<string, string>,
): Promise<TestResponse> {
  const response = await get(app, url, headers);
  expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
  return response;
}

/**
 * Spies on the app's RegistryRepository (to count the queries behind an answer); call it in a describe block, and
 * every spy it made is restored after each test.
 */
export function repositorySpies(
  app: () => NestFastifyApplication,
): <K extends keyof RegistryRepository>(method: K) => jest.SpyInstance {
  const spies: jest.SpyInstance[] = [];
  afterEach(() => {
    for (const instance of spies.splice(0)) instance.mockRestore();
  });
  return (method) => {
    const instance = jest.spyOn(app().get(RegistryRepository, { strict: false }), method as never);
    spies.push(instance);
    return instance;
  };
}

/** Every object schema closed (additionalProperties: false): a body with an extra or misspelt field fails. */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = closeObjects(value);
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined)
    copy.additionalProperties = false;
  return copy;
}

/** Points the document's local `$ref`s at the copy registered in Ajv under the id `openapi`. */
function anchorRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchorRefs);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `openapi${value}`
        : anchorRefs(value);
  }
  return copy;
}

/**
 * Validators for schemas of the OpenAPI document the service serves (not a copy the test keeps): by component name,
 * or any schema as a response declares it (a `$ref` or written inline).
 */
export function openApiValidators(document: { components: { schemas: Record<string, unknown> } }): {
  named(name: string): ValidateFunction;
  schema(schema: object): ValidateFunction;
} {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: closeObjects(document.components) as object });
  const cache = new Map<string, ValidateFunction>();
  const compile = (schema: object): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = cache.get(key);
    if (!validate) {
      validate = ajv.compile(anchorRefs(closeObjects(schema)) as object);
      cache.set(key, validate);
    }
    return validate;
  };
  return { named: (name) => compile({ $ref: `#/components/schemas/${name}` }), schema: compile };
}

/** Validators for the named schemas of the OpenAPI document the service serves. */
export function schemaValidators(document: {
  components: { schemas: Record<string, unknown> };
}): (name: string) => ValidateFunction {
  return openApiValidators(document).named;
}
