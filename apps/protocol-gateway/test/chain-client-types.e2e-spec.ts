import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

// libs/chain-client's types are openapi-typescript's output for the document this gateway serves from the chain's
// protos (its compiled-in routes: no reflection). A change to the protos or to the document generator that is not
// followed by `node scripts/pnpm.mjs --filter @dmrv/chain-client run generate` fails here.
jest.setTimeout(120_000);

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts', 'generate-chain-client.mjs');

async function check(url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [SCRIPT, '--check', '--url', url], { cwd: REPO_ROOT }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

async function listen(gateway: Gateway): Promise<string> {
  await gateway.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(gateway.app.getHttpServer().address() as AddressInfo).port}/ixo/openapi.json`;
}

describe('@dmrv/chain-client types, generated from the served OpenAPI document', () => {
  let node: LocalChainNode;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    node = await startNode();
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await node?.stop();
  });

  it("are openapi-typescript's output for the gateway's document of the chain's protos", async () => {
    const gateway = await startGateway({ GRPC_UPSTREAM: node.address, REFLECTION_ENABLED: 'false' });
    gateways.push(gateway);
    expect(await check(await listen(gateway))).toEqual({
      code: 0,
      stdout: 'libs/chain-client/src/openapi.generated.ts is current\n',
      stderr: '',
    });
  });

  it('the check fails on a document that differs (here: a node that adds the bank module through reflection)', async () => {
    const gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    gateways.push(gateway);
    expect(await check(await listen(gateway))).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'libs/chain-client/src/openapi.generated.ts differs from the types of the served document: run ' +
        '`node scripts/pnpm.mjs --filter @dmrv/chain-client run generate`\n',
    });
  });
});
