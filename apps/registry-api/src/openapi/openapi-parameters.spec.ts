import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument, DocumentedRoutesModule } from '../registry-openapi';

// The served document is generated from the query classes' `@ApiProperty` decorators; this ties it to what the routes
// really accept (their class-validator rules). A parameter documented but refused (the pipe answers 400 "property x
// should not exist") or accepted but undocumented (a generated client cannot send it) fails here.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking the document

interface Route {
  path: string;
  /** Parameter name → required; null for a route without a query class. */
  accepts: Map<string, boolean> | null;
  /** Parameter name → the most characters the query class lets through (MaxChars). */
  maxChars: Map<string, number>;
}

/** The MaxChars bound of each parameter of the query class. */
function maxCharsOf(queryClass: new () => unknown): Map<string, number> {
  const bounds = new Map<string, number>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(queryClass, '', true, false)) {
    if (rule.name === 'maxChars') bounds.set(rule.propertyName, (rule.constraints as [number])[0]);
  }
  return bounds;
}

/** What the query class lets through the global validation pipe (whitelist + forbidNonWhitelisted). */
function acceptedParameters(queryClass: new () => unknown): Map<string, boolean> {
  const accepted = new Map<string, boolean>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(queryClass, '', true, false)) {
    const required = rule.type === ValidationTypes.IS_DEFINED || rule.name === 'isDefined';
    accepted.set(rule.propertyName, (accepted.get(rule.propertyName) ?? false) || required);
  }
  return accepted;
}

/** Stops a request at the pipe, after it has seen what the route's `@Query()` parameter is validated against. */
class QueryClassProbe implements PipeTransform {
  seen: ArgumentMetadata['metatype'] | null = null;

  transform(_value: unknown, metadata: ArgumentMetadata): never {
    if (metadata.type === 'query') this.seen = metadata.metatype;
    throw new Error('probed');
  }
}

/**
 * Every GET route of the app's controllers as Nest registers them on Fastify, with the query class its `@Query()`
 * parameter is validated against, as the global pipe is handed it: nothing answers, no I/O.
 */
async function servedRoutes(): Promise<Route[]> {
  const adapter = new FastifyAdapter();
  const paths: string[] = [];
  adapter.getInstance().addHook('onRoute', (route) => {
    if (route.method === 'GET') paths.push(route.url);
  });
  const app = await NestFactory.create<NestFastifyApplication>(DocumentedRoutesModule, adapter, {
    logger: false,
  });
  const probe = new QueryClassProbe();
  app.useGlobalPipes(probe);
  await app.init();
  try {
    const routes: Route[] = [];
    for (const path of paths) {
      probe.seen = null;
      await app.inject({ method: 'GET', url: path });
      const queryClass = probe.seen as (new () => unknown) | null;
      routes.push({
        path,
        accepts: queryClass ? acceptedParameters(queryClass) : null,
        maxChars: queryClass ? maxCharsOf(queryClass) : new Map(),
      });
    }
    return routes;
  } finally {
    await app.close();
  }
}

describe('OpenAPI parameters against the routes', () => {
  // The paths to check, known before the document is generated (it.each needs them): those of the document this one
  // replaced, which openapi-meaning.spec.ts holds the generated one to.
  const documented = Object.keys(
    (
      JSON.parse(
        readFileSync(join(__dirname, '../../test/fixtures/openapi-before-swagger.json'), 'utf8'),
      ) as Json
    ).paths as Json,
  );
  let document: Json;
  let routes: Route[];

  beforeAll(async () => {
    document = (await buildOpenApiDocument('/v1')) as Json;
    routes = await servedRoutes();
  });

  it('documents the paths it is checked for', () => {
    expect(Object.keys(document.paths as Json).sort()).toEqual([...documented].sort());
  });

  it('documents every served path, /fuel/usage included, and serves every documented one', () => {
    const served = routes.map((route) => route.path);
    expect(served).toContain('/fuel/usage');
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it.each(documented)('GET %s: documented parameters are exactly those the query class accepts', (path) => {
    const route = routes.find((candidate) => candidate.path === path)!;
    const parameters = ((document.paths as Json)[path].get.parameters ?? []) as Json[];
    const documentedParameters = new Map(
      parameters.map((parameter) => [parameter.name as string, parameter.required === true]),
    );
    expect(parameters.every((parameter) => parameter.in === 'query')).toBe(true);
    expect(Object.fromEntries(documentedParameters)).toEqual(Object.fromEntries(route.accepts ?? new Map()));
  });

  // Issue 32: every string parameter has a maximum length, checked before anything else, and documented. The two
  // parameters of the original getIssuedCredits keep the original's schema; their bounds are in the README.
  it.each(documented)(
    'GET %s: every string parameter is bounded, and documented with the bound it has',
    (path) => {
      const route = routes.find((candidate) => candidate.path === path)!;
      const parameters = ((document.paths as Json)[path].get.parameters ?? []) as Json[];
      const original = (document.paths as Json)[path].get.operationId === 'getIssuedCredits';
      const strings = parameters.filter((parameter) => parameter.schema.type === 'string');
      const enforced = strings.map((parameter) => [
        parameter.name,
        route.maxChars.get(parameter.name as string) ?? 'not bounded',
      ]);
      const stated = strings.map((parameter) => [
        parameter.name,
        original ? expect.any(Number) : (parameter.schema.maxLength ?? 'no maxLength documented'),
      ]);
      expect(Object.fromEntries(enforced)).toEqual(Object.fromEntries(stated));
    },
  );
});
