import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AnswerToVerify, type JsonWebKeySet, parseJwks, verifyAnswer } from '@dmrv/http-signatures';
import { createTestDatabase, type TestDatabase } from '@dmrv/testing';
import { runCli } from './cli-test-kit';
import { basicAuth, loadFixture, type RegistryFixture } from './fixtures/registry-fixture';
import { startApp, stopRegistryStack } from './registry-test-kit';
import { answerTo, publishedKeys } from './signing-test-kit';

const STATS = '/v1/households/stats';

// Rotation as docs/security.md tells an operator to do it: a new key from the CLI, the old one retired with the CLI
// into SIGNING_RETIRED_KEYS_FILE, the service restarted on both.
describe('signing key rotation', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let directory: string;
  let app: NestFastifyApplication | undefined;
  let first: AnswerToVerify;
  let second: AnswerToVerify;
  let rotated: JsonWebKeySet;
  let kids: { k1: string; k2: string };

  async function newKey(name: string): Promise<{ file: string; kid: string }> {
    const run = await runCli(['signing-key', 'generate']);
    expect(run.code).toBe(0);
    const file = join(directory, name);
    writeFileSync(file, run.stdout, { mode: 0o600 });
    return { file, kid: /^key id (\S+):/.exec(run.stderr)![1]! };
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'registry-rotation-'));
    database = await createTestDatabase('registry_key_rotation');
    fixture = await loadFixture(database.url);
    const auth = { authorization: basicAuth(fixture.client) };
    const [k1, k2] = [await newKey('k1.pem'), await newKey('k2.pem')];
    kids = { k1: k1.kid, k2: k2.kid };

    app = await startApp({ DATABASE_URL: database.url, SIGNING_KEY_FILE: k1.file });
    first = await answerTo(app, STATS, { headers: auth });
    await app.close();

    const retiredFile = join(directory, 'retired-keys.json');
    expect((await runCli(['signing-key', 'retire', k1.file, '--into', retiredFile])).code).toBe(0);
    app = await startApp({
      DATABASE_URL: database.url,
      SIGNING_KEY_FILE: k2.file,
      SIGNING_RETIRED_KEYS_FILE: retiredFile,
    });
    second = await answerTo(app, STATS, { headers: auth });
    rotated = await publishedKeys(app);
  });

  afterAll(async () => {
    await stopRegistryStack({ app, fixture, database });
    rmSync(directory, { recursive: true, force: true });
  });

  it('publishes the new key, and the old one with the time it stopped signing', () => {
    expect(rotated.keys.map(({ kid, exp }) => ({ kid, retired: exp !== undefined }))).toEqual([
      { kid: kids.k2, retired: false },
      { kid: kids.k1, retired: true },
    ]);
  });

  it('verifies the archive signed before the rotation and the one signed after, each by its own key', async () => {
    await expect(verifyAnswer(first, rotated)).resolves.toMatchObject({ keyid: kids.k1 });
    await expect(verifyAnswer(second, rotated)).resolves.toMatchObject({ keyid: kids.k2 });
  });

  it('refuses the old archive once its key is removed from the set, and keeps the new one', async () => {
    const withoutK1 = { keys: rotated.keys.filter((key) => key.kid !== kids.k1) };
    await expect(verifyAnswer(first, withoutK1)).rejects.toMatchObject({ reason: 'unknown-key' });
    await expect(verifyAnswer(second, withoutK1)).resolves.toMatchObject({ keyid: kids.k2 });
  });

  it('refuses a signature the old key made after the time it stopped signing', async () => {
    const created = Number(
      /;created=(\d+)/.exec(
        String((first.response.headers as Record<string, string>)['signature-input']),
      )![1],
    );
    const early = {
      keys: rotated.keys.map((key) => (key.kid === kids.k1 ? { ...key, exp: created - 1 } : key)),
    };
    await expect(verifyAnswer(first, early)).rejects.toMatchObject({ reason: 'key-retired' });
  });

  it('refuses to start on a key the retired set lists', async () => {
    const retiredFile = join(directory, 'retired-keys.json');
    const again = parseJwks(JSON.parse(readFileSync(retiredFile, 'utf8')));
    expect(again.keys.map((key) => key.kid)).toEqual([kids.k1]);
    await expect(
      startApp({
        DATABASE_URL: database.url,
        SIGNING_KEY_FILE: join(directory, 'k1.pem'),
        SIGNING_RETIRED_KEYS_FILE: retiredFile,
      }),
    ).rejects.toThrow(
      `SIGNING_RETIRED_KEYS lists the key SIGNING_KEY holds (${kids.k1}): a retired key must not sign`,
    );
  });
});
