import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_ROOT } from '@dmrv/proto';
import { requireEnv, sendJson, serveFloor } from './floor-server';

// Only the calls the benchmark makes, each the same unary call the gateway makes, with no route table,
// query binding, metadata forwarding or error mapping: whatever the gateway adds on top is its overhead.
const definition = protoLoader.loadSync(
  ['ixo/token/v1beta1/query.proto', 'ixo/entity/v1beta1/query.proto', 'ixo/claims/v1beta1/query.proto'].map(
    (file) => join(PROTO_ROOT, file),
  ),
  {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    bytes: String,
    defaults: true,
    oneofs: true,
  },
);
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  ixo: Record<'token' | 'entity' | 'claims', { v1beta1: { Query: grpc.ServiceClientConstructor } }>;
};

const upstream = requireEnv('GRPC_UPSTREAM');
const credentials = grpc.credentials.createInsecure();
const clients = {
  token: new loaded.ixo.token.v1beta1.Query(upstream, credentials),
  entity: new loaded.ixo.entity.v1beta1.Query(upstream, credentials),
  claims: new loaded.ixo.claims.v1beta1.Query(upstream, credentials),
};

type Unary = (
  request: unknown,
  callback: (error: grpc.ServiceError | null, response: unknown) => void,
) => void;

function call(client: grpc.Client, method: string, request: unknown): Promise<unknown> {
  const fn = (client as unknown as Record<string, Unary>)[method]!.bind(client);
  return new Promise((resolve, reject) =>
    fn(request, (error, response) => (error ? reject(error) : resolve(response))),
  );
}

const ENTITY_PREFIX = '/ixo/entity/';

serveFloor(
  'protocol-floor',
  async (request, _body, response) => {
    const url = new URL(request.url ?? '/', 'http://floor');
    let result: unknown;
    if (url.pathname === '/ixo/token/params') {
      result = await call(clients.token, 'Params', {});
    } else if (url.pathname === '/ixo/entity/params') {
      result = await call(clients.entity, 'Params', {});
    } else if (url.pathname === '/ixo/claims/collections') {
      result = await call(clients.claims, 'CollectionList', {});
    } else if (url.pathname === '/ixo/claims/claims') {
      result = await call(clients.claims, 'ClaimList', {
        pagination: { limit: url.searchParams.get('pagination.limit') ?? '100' },
      });
    } else if (url.pathname.startsWith(ENTITY_PREFIX)) {
      result = await call(clients.entity, 'Entity', {
        id: decodeURIComponent(url.pathname.slice(ENTITY_PREFIX.length)),
      });
    } else {
      return sendJson(response, 404, { code: 5, message: 'not found', details: [] });
    }
    sendJson(response, 200, result);
  },
  async () => {
    for (const client of Object.values(clients)) client.close();
  },
);
