import 'reflect-metadata';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { HelloController } from '../hello/hello.controller';
import { RecordsController } from '../registry/records.controller';
import { RegistryController } from '../registry/registry.controller';
import { buildOpenApiDocument } from './openapi-document';
import { OpenApiController } from './openapi.controller';

// The served document is written by hand for the aggregate operations and derived from declarations for the record
// resources; this ties both to what the routes really accept. A parameter documented but refused (the pipe answers
// 400 "property x should not exist") or accepted but undocumented (a generated client cannot send it) fails here.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking the document

interface Route {
  path: string;
  /** Parameter name → required; null for a route without a query class. */
  accepts: Map<string, boolean> | null;
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

/** Every GET route of the app's controllers, with the query class its `@Query()` parameter is validated against. */
function servedRoutes(): Route[] {
  const routes: Route[] = [];
  for (const controller of [RegistryController, RecordsController, HelloController, OpenApiController]) {
    const prototype = controller.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number }>;
      const query = Object.entries(args).find(([key]) => key.startsWith(`${RouteParamtypes.QUERY}:`))?.[1];
      const types = Reflect.getMetadata('design:paramtypes', prototype, name) as Array<new () => unknown>;
      const accepts = query ? acceptedParameters(types[query.index]!) : null;
      for (const path of [paths].flat()) routes.push({ path: `/${path}`, accepts });
    }
  }
  return routes;
}

describe('OpenAPI parameters against the routes', () => {
  const document = buildOpenApiDocument('/v1') as Json;
  const routes = servedRoutes();
  const documented = Object.keys(document.paths as Json);

  it('documents every served path, /fuel/usage included, and serves every documented one', () => {
    const served = routes.map((route) => route.path).filter((path) => path !== '/openapi.json');
    expect(served).toContain('/fuel/usage');
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it.each(documented)('GET %s: documented parameters are exactly those the query class accepts', (path) => {
    const route = routes.find((candidate) => candidate.path === path)!;
    const parameters = ((document.paths as Json)[path].get.parameters ?? []) as Json[];
    const documentedParameters = new Map(parameters.map((parameter) => [parameter.name as string, parameter.required === true]));
    expect(parameters.every((parameter) => parameter.in === 'query')).toBe(true);
    expect(Object.fromEntries(documentedParameters)).toEqual(Object.fromEntries(route.accepts ?? new Map()));
  });
});
