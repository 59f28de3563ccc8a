import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { entityDid } from '../../../tools/local-chain-node/src';
import { OpenApiDocuments } from '../src/openapi/openapi-document';
import { RouteTable } from '../src/routes/route-table';
import { ServedRoutes } from '../src/routes/served-routes';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a JSON document

/** OpenAPI 3.0's `nullable` as JSON Schema, and every object closed: a body with a field the schema lacks fails. */
function asJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    copy[key] = key === '$ref' ? `openapi${String(value)}` : asJsonSchema(value);
  }
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined)
    copy.additionalProperties = false;
  if ((schema as Json).nullable === true) {
    return copy.allOf || !copy.type
      ? { anyOf: [copy, { type: 'null' }] }
      : { ...copy, type: [copy.type, 'null'] };
  }
  return copy;
}

describe('OpenAPI document and Swagger UI, generated from the route table', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let document: Json;

  beforeAll(async () => {
    node = await startNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    document = (await gateway.get('/ixo/openapi.json')).body;
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
  });

  it('is a valid OpenAPI 3.0 document (swagger-parser: schema and every $ref)', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.openapi).toBe('3.0.3');
  });

  it('has one GET operation per served route, with typed path and query parameters', () => {
    const routes = gateway.app.get(ServedRoutes).current.table.routes;
    const operations = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json));
    expect(operations.map((operation) => operation.summary).sort()).toEqual(
      routes.map((route) => route.fullMethod).sort(),
    );
    const intent = document.paths['/ixo/claims/intent/{agentAddress}/{collectionId}/{id}'].get;
    expect(
      intent.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => [p.name, p.required]),
    ).toEqual([
      ['agentAddress', true],
      ['collectionId', true],
      ['id', true],
    ]);
    const list = document.paths['/ixo/claims/claims'].get.parameters as Json[];
    const byName = Object.fromEntries(list.map((parameter) => [parameter.name, parameter.schema]));
    expect(byName['pagination.key']).toEqual({ type: 'string', format: 'byte' });
    expect(byName['pagination.limit']).toMatchObject({ type: 'string', format: 'uint64' });
    expect(byName['pagination.count_total']).toEqual({ type: 'boolean' });
    const bySubject =
      document.paths['/ixo/claims/dispute-by-subject/{subjectId}/{targetRole}'].get.parameters;
    expect(bySubject.find((p: Json) => p.name === 'targetRole').schema.enum).toContain(
      'DISPUTE_TARGET_ROLE_SUBMITTER',
    );
  });

  it('declares the error body on every operation', () => {
    for (const item of Object.values(document.paths as Json)) {
      for (const operation of Object.values(item as Json)) {
        expect(operation.responses.default.content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/GrpcStatusError',
        });
      }
    }
    expect(document.components.schemas.GrpcStatusError.required).toEqual(['code', 'message', 'details']);
  });

  it('describes the bodies the gateway really sends (closed schemas: no field missing from the document)', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: asJsonSchema(document.components) as object });
    const seed = node.seed;
    for (const path of [
      `/ixo/entity/${entityDid(0)}`,
      '/ixo/entity?pagination.limit=3',
      '/ixo/claims/claims?pagination.limit=20',
      '/ixo/claims/collections',
      '/ixo/claims/disputes',
      '/ixo/claims/intents',
      `/ixo/token/minter/${String(seed.tokens[0]!.minter)}`,
      '/ixo/did/dids?pagination.limit=5',
      '/ixo/token/params',
      '/ixo/nothing',
    ]) {
      const answer = await gateway.get(path);
      const template = Object.keys(document.paths).find((candidate) =>
        new RegExp(`^${candidate.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0]!),
      );
      const schema =
        template === undefined
          ? { $ref: 'openapi#/components/schemas/GrpcStatusError' }
          : asJsonSchema(
              document.paths[template].get.responses[String(answer.status)].content['application/json']
                .schema,
            );
      const validate = ajv.compile(schema as object);
      expect({ path, valid: validate(answer.body), errors: validate.errors ?? null }).toEqual({
        path,
        valid: true,
        errors: null,
      });
    }
  });

  it('serves Swagger UI under the prefix from the package, with the current document inline', async () => {
    const page = await gateway.app.inject({ method: 'GET', url: '/ixo/api-docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)[^"']+\.(js|css)/);
    const init = await gateway.app.inject({ method: 'GET', url: '/ixo/api-docs/swagger-ui-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('"/ixo/claims/claims"');
    const bundle = await gateway.app.inject({ method: 'GET', url: '/ixo/api-docs/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.body.length).toBeGreaterThan(100_000);
  });

  it('follows PROTOCOL_PREFIX', async () => {
    const mounted = await startGateway({ GRPC_UPSTREAM: node.address, PROTOCOL_PREFIX: 'chain/ixo' });
    try {
      const { status, body } = await mounted.get('/chain/ixo/openapi.json');
      expect(status).toBe(200);
      expect(Object.keys(body.paths)).toContain('/chain/ixo/token/params');
      expect((await mounted.app.inject({ method: 'GET', url: '/chain/ixo/api-docs' })).statusCode).toBe(200);
    } finally {
      await mounted.close();
    }
  });
});

describe('OpenApiDocuments: one document per route table version', () => {
  it('is rebuilt when the current table changes, and kept while it does not', async () => {
    const node = await startNode();
    const gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    try {
      const full = gateway.app.get(ServedRoutes).current.table;
      let current = full;
      const documents = new OpenApiDocuments(() => current, { title: 't', version: '1' });
      const first = documents.current();
      expect(documents.current()).toBe(first);
      // What a reflection refresh does: a new table replaces the old one.
      current = RouteTable.fromRoot(
        full.routes[0]!.requestType.root,
        ['ixo.token.v1beta1.Query'],
        full.prefix,
      );
      const second = documents.current();
      expect(second).not.toBe(first);
      expect(Object.keys(second.paths as Json).every((path) => path.startsWith('/ixo/token/'))).toBe(true);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
