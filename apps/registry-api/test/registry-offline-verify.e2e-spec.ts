import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-test-kit';
import { type RegistryStack, startRegistryStack, stopRegistryStack } from './registry-test-kit';
import { rawExchange, type TestSigningKey, testSigningKey } from './signing-test-kit';

const STATS = '/v1/households/stats';

// The auditor's way (docs/security.md, "Verifying an archived answer"): the answer saved with `curl -i` behind a line
// naming the request, the key set saved from /v1/jwks.json, `cli.js verify` long after, without the service.
describe('cli.js verify: an archived answer checked offline', () => {
  let stack: RegistryStack;
  let key: TestSigningKey;
  let directory: string;
  let url: string;
  let saved: Buffer;
  let jwksFile: string;

  beforeAll(async () => {
    key = await testSigningKey();
    stack = await startRegistryStack('registry_offline_verify', { SIGNING_KEY: key.pem });
    await stack.app.listen(0, '127.0.0.1');
    const port = (stack.app.getHttpServer().address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}${STATS}`;
    // What the server sent, byte for byte: what `curl -i` writes for an answer with a Content-Length.
    saved = await rawExchange(
      port,
      `GET ${STATS} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${stack.auth.authorization}\r\nConnection: close\r\n\r\n`,
    );
    directory = mkdtempSync(join(tmpdir(), 'registry-verify-'));
    jwksFile = join(directory, 'jwks.json');
    writeFileSync(jwksFile, await (await fetch(`http://127.0.0.1:${port}/v1/jwks.json`)).text());
  });

  afterAll(async () => {
    await stopRegistryStack(stack);
    rmSync(directory, { recursive: true, force: true });
  });

  function save(name: string, content: Buffer | string): string {
    const file = join(directory, name);
    writeFileSync(file, content);
    return file;
  }

  it('verifies the answer, naming the key and the signing time', async () => {
    const run = await runCli([
      'verify',
      save('answer.http', Buffer.concat([Buffer.from(`GET ${url}\n`), saved])),
      '--jwks',
      jwksFile,
    ]);
    expect(run).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `^verified: GET ${url} answered 200, signed by key ${key.jwk.kid} at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.000Z\\n$`,
        ),
      ),
    });
  });

  it('takes the request from --url when the file holds only the response', async () => {
    expect(
      (await runCli(['verify', save('response.http', saved), '--jwks', jwksFile, '--url', url])).code,
    ).toBe(0);
  });

  const body = (bytes: Buffer): Buffer => {
    const copy = Buffer.from(bytes);
    copy[copy.length - 2] ^= 1;
    return copy;
  };
  it.each([
    [
      'one byte of the body',
      (bytes: Buffer) => Buffer.concat([Buffer.from(`GET ${url}\n`), body(bytes)]),
      'NOT VERIFIED (digest-mismatch)',
    ],
    [
      'the status',
      (bytes: Buffer) =>
        Buffer.concat([
          Buffer.from(`GET ${url}\n`),
          Buffer.from(bytes.toString('latin1').replace('HTTP/1.1 200 OK', 'HTTP/1.1 203 OK'), 'latin1'),
        ]),
      'NOT VERIFIED (bad-signature)',
    ],
    [
      'the URI',
      (bytes: Buffer) => Buffer.concat([Buffer.from(`GET ${url}?project_id=project-a\n`), bytes]),
      'NOT VERIFIED (bad-signature)',
    ],
  ])('exits 1 when %s changed', async (_what, change, verdict) => {
    const run = await runCli(['verify', save('changed.http', change(saved)), '--jwks', jwksFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(verdict);
  });

  it('exits 1 when the key is not in the key set', async () => {
    const other = await testSigningKey();
    const run = await runCli([
      'verify',
      save('a.http', Buffer.concat([Buffer.from(`GET ${url}\n`), saved])),
      '--jwks',
      save('other.json', JSON.stringify({ keys: [other.jwk] })),
    ]);
    expect(run).toMatchObject({
      code: 1,
      stdout: `NOT VERIFIED (unknown-key): key ${key.jwk.kid} is not in the key set\n`,
    });
  });

  it.each([
    [['verify', 'x.http'], '--jwks is required: the key set saved from GET /v1/jwks.json'],
    [
      ['verify', 'response.http', '--jwks', 'JWKS'],
      'no request: start the file with a line "GET <absolute URL>", or name the URL',
    ],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const run = await runCli(
      args.map((arg) =>
        arg === 'JWKS' ? jwksFile : arg === 'response.http' ? save('response.http', saved) : arg,
      ),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
