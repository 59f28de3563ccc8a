import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operationMeanings } from '../../test/openapi-meaning';
import { listPath, RECORD_RESOURCES } from '../registry/record-resources';
import { buildOpenApiDocument } from '../registry-openapi';

// The document as it was served while it was written by hand (test/fixtures/openapi-before-swagger.json): the one
// generated from the controllers must mean the same to a generated client, operation for operation.
const BEFORE = JSON.parse(
  readFileSync(join(__dirname, '../../test/fixtures/openapi-before-swagger.json'), 'utf8'),
) as Record<string, unknown>;

describe('the generated OpenAPI document against the hand-written one it replaces', () => {
  let generated: Record<string, unknown>;

  beforeAll(async () => {
    generated = (await buildOpenApiDocument('/v1')) as unknown as Record<string, unknown>;
  });

  it('has the same operations', () => {
    expect(Object.keys(operationMeanings(generated)).sort()).toEqual(
      Object.keys(operationMeanings(BEFORE)).sort(),
    );
  });

  it.each(Object.keys(operationMeanings(BEFORE)))(
    '%s: same parameters, responses and schemas ($refs resolved)',
    (operation) => {
      expect(operationMeanings(generated)[operation]).toEqual(operationMeanings(BEFORE)[operation]);
    },
  );

  it('keeps the operationIds and tags, the server, the security and the tags', () => {
    const ids = (document: Record<string, unknown>) =>
      Object.entries(document.paths as Record<string, { get: { operationId: string; tags: string[] } }>)
        .map(([path, item]) => `${path} ${item.get.operationId} ${item.get.tags.join()}`)
        .sort();
    expect(ids(generated)).toEqual(ids(BEFORE));
    for (const key of ['openapi', 'info', 'servers', 'security', 'tags'])
      expect({ key, value: generated[key] }).toEqual({ key, value: BEFORE[key] });
    expect((generated.components as Record<string, unknown>).securitySchemes).toEqual(
      (BEFORE.components as Record<string, unknown>).securitySchemes,
    );
  });

  // RegistryAnswers names the operation it answers by the declaration's operationIds (EMPTY_AS=zero looks the zero
  // body up by them); the document names it by the route's method.
  it.each(RECORD_RESOURCES.map((resource) => [resource.name, resource] as const))(
    'names the operations of the %s resource as its declaration does',
    (_name, resource) => {
      const paths = generated.paths as Record<string, { get: { operationId: string } }>;
      expect([
        paths[resource.endpoint.path]?.get.operationId,
        paths[listPath(resource)]?.get.operationId,
      ]).toEqual([resource.endpoint.operationId, resource.endpoint.listOperationId]);
    },
  );
});
