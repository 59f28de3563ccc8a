import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  credentials,
  loadPackageDefinition as grpcPackage,
  Client,
  GrpcObject,
  Metadata,
  ServiceClientConstructor,
  ServiceError,
  status,
} from '@grpc/grpc-js';
import {
  descriptorTypes,
  HEALTH_PROTO_FILE,
  HTTP_OPTION_FIELD,
  loadPackageDefinition,
  QUERY_PROTO_FILES,
  QUERY_SERVICES,
  REFLECTION_PROTO_FILE,
} from '@dmrv/proto';
import { LocalChainNode, startLocalChainNode } from './chain-node';
import { SEED_COUNTS } from './seed';

// Answers are checked field by field below; `any` keeps the dynamic proto-loader client readable.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Unary = (
  request: object,
  metadata: Metadata,
  callback: (error: ServiceError | null, response: any) => void,
) => void;

const definitions = grpcPackage(
  loadPackageDefinition([...QUERY_PROTO_FILES, HEALTH_PROTO_FILE, REFLECTION_PROTO_FILE]),
);

function serviceClient(name: string, address: string): Client & Record<string, Unary> {
  const constructor = name
    .split('.')
    .reduce<unknown>((scope, part) => (scope as GrpcObject)[part], definitions) as ServiceClientConstructor;
  return new constructor(address, credentials.createInsecure()) as unknown as Client & Record<string, Unary>;
}

function call(
  client: Client & Record<string, Unary>,
  method: string,
  request: object,
  metadata = new Metadata(),
): Promise<any> {
  return new Promise((resolve, reject) =>
    client[method]!(request, metadata, (error, response) => (error ? reject(error) : resolve(response))),
  );
}
/* eslint-enable @typescript-eslint/no-explicit-any */

interface PlainFile {
  package?: string;
  service?: Array<{
    name?: string;
    method?: Array<{ name?: string; options?: Record<string, { get?: string } | undefined> }>;
  }>;
}

describe('local chain node over real gRPC', () => {
  let node: LocalChainNode;
  const clients: Client[] = [];

  beforeAll(async () => {
    node = await startLocalChainNode({
      omitServices: ['iid'],
      failures: new Map([['ixo.token.v1beta1.Query/TokenMetadata', status.DATA_LOSS]]),
    });
  });

  afterAll(async () => {
    clients.forEach((client) => client.close());
    await node.stop();
  });

  function client(name: string): Client & Record<string, Unary> {
    const created = serviceClient(name, node.address);
    clients.push(created);
    return created;
  }

  it('serves the seeded data with Cosmos pagination', async () => {
    const claims = client('ixo.claims.v1beta1.Query');
    const ids: string[] = [];
    let key: Buffer | undefined;
    do {
      const page = await call(claims, 'ClaimList', { pagination: { limit: 64, key } });
      ids.push(...page.claims.map((claim: { claim_id: string }) => claim.claim_id));
      key = page.pagination.next_key.length > 0 ? page.pagination.next_key : undefined;
    } while (key);
    expect(new Set(ids).size).toBe(SEED_COUNTS.claims);
  });

  it('reports the block height and echoes metadata', async () => {
    const token = client('ixo.token.v1beta1.Query');
    const metadata = new Metadata();
    metadata.set('x-cosmos-block-height', '10');
    metadata.set('tenant', 'acme');
    const headers = await new Promise<Metadata>((resolve, reject) => {
      const pending = (
        token.Params as unknown as (
          r: object,
          m: Metadata,
          cb: (e: ServiceError | null) => void,
        ) => { on(event: string, listener: (m: Metadata) => void): void }
      )({}, metadata, (error) => error && reject(error));
      pending.on('metadata', resolve);
    });
    expect(headers.get('x-cosmos-block-height')).toEqual(['10']);
    expect(headers.get('x-echo-tenant')).toEqual(['acme']);
  });

  it('answers UNIMPLEMENTED for newer methods and left-out services, and injected failures', async () => {
    await expect(call(client('ixo.claims.v1beta1.Query'), 'CollectionMember', {})).rejects.toMatchObject({
      code: status.UNIMPLEMENTED,
    });
    await expect(call(client('ixo.iid.v1beta1.Query'), 'IidDocuments', {})).rejects.toMatchObject({
      code: status.UNIMPLEMENTED,
    });
    await expect(call(client('ixo.token.v1beta1.Query'), 'TokenMetadata', { id: 'x' })).rejects.toMatchObject(
      { code: status.DATA_LOSS },
    );
  });

  it('runs the standard health service', async () => {
    const health = client('grpc.health.v1.Health');
    await expect(call(health, 'Check', { service: '' })).resolves.toEqual({ status: 'SERVING' });
    await expect(call(health, 'Check', { service: 'ixo.entity.v1beta1.Query' })).resolves.toEqual({
      status: 'SERVING',
    });
    await expect(call(health, 'Check', { service: 'ixo.iid.v1beta1.Query' })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
  });

  it('lists exactly the served services through server reflection', async () => {
    const reflection = client('grpc.reflection.v1alpha.ServerReflection');
    const services = await new Promise<string[]>((resolve, reject) => {
      const stream = (
        reflection.ServerReflectionInfo as unknown as () => NodeJS.ReadWriteStream & { end(): void }
      )();
      stream.on('data', (response: { list_services_response: { service: Array<{ name: string }> } }) => {
        stream.end();
        resolve(response.list_services_response.service.map((service) => service.name).sort());
      });
      stream.on('error', reject);
      stream.write({ list_services: '*' } as never);
    });
    // Every chain module of libs/proto but iid (omitted above), and the extra module bank.
    expect(services).toEqual(
      [
        ...QUERY_SERVICES.filter((service) => service !== 'ixo.iid.v1beta1.Query'),
        'cosmos.bank.v1beta1.Query',
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
      ].sort(),
    );
    expect(services).toEqual(
      expect.arrayContaining(['ixo.claims.v1beta1.Query', 'ixo.entity.v1beta1.Query']),
    );
  });

  it('hands out file descriptors that keep the google.api.http rule of every method', async () => {
    const reflection = client('grpc.reflection.v1alpha.ServerReflection');
    const files = await new Promise<Buffer[]>((resolve, reject) => {
      const stream = (
        reflection.ServerReflectionInfo as unknown as () => NodeJS.ReadWriteStream & { end(): void }
      )();
      stream.on('data', (response: { file_descriptor_response: { file_descriptor_proto: Buffer[] } }) => {
        stream.end();
        resolve(response.file_descriptor_response.file_descriptor_proto);
      });
      stream.on('error', reject);
      stream.write({ file_containing_symbol: 'cosmos.bank.v1beta1.Query' } as never);
    });
    const { fileDescriptorProto } = descriptorTypes();
    const rules = files
      .map((bytes) => fileDescriptorProto.toObject(fileDescriptorProto.decode(bytes)) as PlainFile)
      .flatMap((file) =>
        (file.service ?? []).flatMap((service) =>
          (service.method ?? []).map((method) => [
            `${file.package}.${service.name}/${method.name}`,
            method.options?.[HTTP_OPTION_FIELD]?.get,
          ]),
        ),
      );
    expect(rules).toEqual(
      expect.arrayContaining([
        ['cosmos.bank.v1beta1.Query/AllBalances', '/cosmos/bank/v1beta1/balances/{address}'],
        ['cosmos.bank.v1beta1.Query/Balance', '/cosmos/bank/v1beta1/balances/{address}/by_denom'],
        ['ixo.entity.v1beta1.Query/Entity', '/ixo/entity/{id}'],
      ]),
    );
    expect(rules.filter(([name]) => String(name).startsWith('ixo.')).every(([, get]) => get)).toBe(true);
  });
});

describe('local chain node CLI', () => {
  const main = join(__dirname, '..', 'dist', 'main.js');

  it('prints one JSON line when listening and exits 0 on SIGTERM', async () => {
    if (!existsSync(main))
      throw new Error(
        `${main} is missing: build first (node scripts/pnpm.mjs --filter @dmrv/local-chain-node run build)`,
      );
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, CHAIN_NODE_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    expect(JSON.parse(first)).toEqual({ listening: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a bad switch with exit 1, naming the variable', async () => {
    if (!existsSync(main)) throw new Error(`${main} is missing: build first`);
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, CHAIN_NODE_FAIL: 'token' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) =>
      child.once('exit', (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(1);
    expect(stderr).toContain('CHAIN_NODE_FAIL');
  });
});
