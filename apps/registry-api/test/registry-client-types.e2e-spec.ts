import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { listening } from './registry-client-kit';
import { get, type RegistryStack, startRegistryStack, stopRegistryStack } from './registry-test-kit';

// libs/registry-client's types are openapi-typescript's output for the document this service serves. A change to the
// document that is not followed by `node scripts/pnpm.mjs --filter @dmrv/registry-client run generate` fails here.
jest.setTimeout(120_000);

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts', 'generate-registry-client.mjs');

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

describe('@dmrv/registry-client types, generated from the served OpenAPI document', () => {
  let stack: RegistryStack;
  let altered: Server | undefined;

  beforeAll(async () => {
    stack = await startRegistryStack('registry_client_types');
  });

  afterAll(async () => {
    altered?.close();
    await stopRegistryStack(stack);
  });

  it("are openapi-typescript's output for the service's document", async () => {
    expect(await check(`${await listening(stack.app)}/openapi.json`)).toEqual({
      code: 0,
      stdout: 'libs/registry-client/src/openapi.generated.ts is current\n',
      stderr: '',
    });
  });

  it('the check fails on a document that differs (here: one route fewer)', async () => {
    const document = (await get(stack.app, '/v1/openapi.json')).json<{ paths: Record<string, unknown> }>();
    delete document.paths['/hello'];
    altered = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document)),
    );
    altered.listen(0, '127.0.0.1');
    await once(altered, 'listening');
    const port = (altered.address() as AddressInfo).port;
    expect(await check(`http://127.0.0.1:${port}/v1/openapi.json`)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'libs/registry-client/src/openapi.generated.ts differs from the types of the served document: run ' +
        '`node scripts/pnpm.mjs --filter @dmrv/registry-client run generate`\n',
    });
  });
});
