import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { buildOpenApiDocument as buildProtocolDocument } from '../apps/protocol-gateway/src/openapi/openapi-document';
import { ServedRoutes } from '../apps/protocol-gateway/src/routes/served-routes';
import { Gateway, LocalChainNode, startGateway, startNode } from '../apps/protocol-gateway/test/harness';
import { buildOpenApiDocument as buildRegistryDocument } from '../apps/registry-api/src/registry-openapi';
import {
  Backing as UssdBacking,
  createBacking as createUssdBacking,
  OPERATOR_TOKEN,
  startApp as startUssdApp,
} from '../apps/ussd-gateway/test/ussd-test-kit';

// Every OpenAPI document a service serves passes `redocly lint` with the committed redocly.yaml (the recommended
// ruleset): the protocol gateway's as it serves it (generated from the route table of a running gateway and node),
// the USSD gateway's as it serves it (generated from its controllers and DTOs at bootstrap), the registry API's as
// its controller builds it.
jest.setTimeout(120_000);

const run = promisify(execFile);
const REDOCLY = join(REPO_ROOT, 'node_modules', '.bin', 'redocly');

describe('OpenAPI documents under redocly lint (redocly.yaml)', () => {
  let scratch: string;
  let node: LocalChainNode;
  let gateway: Gateway;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-openapi-lint-'));
    node = await startNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const lint = async (name: string, document: unknown) => {
    const file = join(scratch, `${name}.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = await run(
      REDOCLY,
      ['lint', '--config', join(REPO_ROOT, 'redocly.yaml'), '--format', 'stylish', file],
      {
        cwd: scratch,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    if (process.env.OPENAPI_LINT_DUMP)
      writeFileSync(join(process.env.OPENAPI_LINT_DUMP, `${name}.txt`), result.output);
    // Stylish lines: `<line>:<column>  error|warning  <rule>  <message>`.
    const problems = result.output.split('\n').filter((line) => /^\s*\d+:\d+\s+(error|warning)\s/.test(line));
    return { code: result.code, problems, valid: result.output.includes('Your API description is valid') };
  };

  it('protocol-gateway: GET /ixo/openapi.json', async () => {
    const served = await gateway.get('/ixo/openapi.json');
    expect(served.status).toBe(200);
    await expect(lint('protocol-gateway', served.body)).resolves.toEqual({
      code: 0,
      problems: [],
      valid: true,
    });
  });

  it('protocol-gateway with ACCESS_MODE=api-key: the key header as its security scheme, required everywhere', async () => {
    const document = buildProtocolDocument(gateway.app.get(ServedRoutes).current.table, {
      title: 'Protocol gateway',
      version: '0.0.0',
      access: { mode: 'api-key', header: 'x-api-key' },
    }) as { security: unknown; components: { securitySchemes: unknown } };
    expect({ security: document.security, schemes: document.components.securitySchemes }).toEqual({
      security: [{ apiKey: [] }],
      schemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'an API key of API_KEYS' },
      },
    });
    await expect(lint('protocol-gateway-api-key', document)).resolves.toEqual({
      code: 0,
      problems: [],
      valid: true,
    });
  });

  it('registry-api: GET /v1/openapi.json', async () => {
    await expect(lint('registry-api', await buildRegistryDocument('/v1'))).resolves.toEqual({
      code: 0,
      problems: [],
      valid: true,
    });
  });

  it('ussd-gateway: GET /api/ussd/openapi.json', async () => {
    let backing: UssdBacking | undefined;
    let served: { statusCode: number; json(): unknown } | undefined;
    try {
      backing = await createUssdBacking('openapi-lint');
      const { app } = await startUssdApp(backing.env());
      served = await app.inject({
        method: 'GET',
        url: '/api/ussd/openapi.json',
        headers: { 'x-operator-token': OPERATOR_TOKEN },
      });
      await app.close();
    } finally {
      await backing?.cleanup();
    }
    expect(served.statusCode).toBe(200);
    await expect(lint('ussd-gateway', served.json())).resolves.toEqual({
      code: 0,
      problems: [],
      valid: true,
    });
  });
});
