import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@dmrv/testing';
import { runCli } from './cli-test-kit';
import { loadFixture, type RegistryFixture } from './fixtures/registry-fixture';
import { type TestSigningKey, testSigningKey } from './signing-test-kit';

interface Manifest {
  format: string;
  created: string;
  files: Array<{ name: string; sha256: string; bytes: number; rows: number }>;
  signature?: { alg: string; keyid: string; value: string };
}

// An export handed to an auditor: manifest.json states each file's SHA-256, size and rows, signed with the service's
// key; `verify-export` checks the directory against it with nothing but the saved key set.
describe('cli.js export: a signed manifest, and verify-export', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let key: TestSigningKey;
  let root: string;
  let jwksFile: string;

  beforeAll(async () => {
    database = await createTestDatabase('registry_signed_export');
    fixture = await loadFixture(database.url);
    key = await testSigningKey();
    root = mkdtempSync(join(tmpdir(), 'registry-export-'));
    jwksFile = join(root, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify({ keys: [key.jwk] }));
  });

  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  let count = 0;
  async function exported(
    args: string[] = [],
    env: Record<string, string> = { SIGNING_KEY: key.pem },
  ): Promise<string> {
    const directory = join(root, `export-${(count += 1)}`);
    const run = await runCli(['export', directory, '--quiet', ...args], {
      DATABASE_URL: database.url,
      ...env,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n').pop()).toBe(join(directory, 'manifest.json'));
    return directory;
  }

  const manifestOf = (directory: string): Manifest =>
    JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')) as Manifest;
  const verify = (directory: string, jwks = jwksFile): ReturnType<typeof runCli> =>
    runCli(['verify-export', directory, '--jwks', jwks]);

  it('lists every file written with its SHA-256, size and rows, signed by the key', async () => {
    const directory = await exported();
    const manifest = manifestOf(directory);
    expect(manifest.files.map((file) => file.name).sort()).toEqual(
      readdirSync(directory)
        .filter((name) => name.endsWith('.csv'))
        .sort(),
    );
    const households = manifest.files.find((file) => file.name === 'households.csv')!;
    expect(households.rows).toBe(
      readFileSync(join(directory, 'households.csv'), 'utf8').trimEnd().split('\r\n').length - 1,
    );
    expect(manifest.signature).toEqual({ alg: 'ed25519', keyid: key.jwk.kid, value: expect.any(String) });
    const rows = manifest.files.reduce((sum, file) => sum + file.rows, 0);
    expect(await verify(directory)).toMatchObject({
      code: 0,
      stdout: `verified: ${manifest.files.length} files, ${rows} rows, as exported at ${manifest.created}, signed by key ${key.jwk.kid}\n`,
    });
  });

  it('verifies an NDJSON export the same way (rows counted as import reads them)', async () => {
    expect((await verify(await exported(['--format', 'ndjson']))).code).toBe(0);
  });

  it.each([
    [
      'one changed byte of a file',
      (directory: string) => flipByte(join(directory, 'households.csv')),
      "households.csv: its SHA-256 differs from the manifest's (the file changed)",
    ],
    [
      'a missing file',
      (directory: string) => rmSync(join(directory, 'projects.csv')),
      'projects.csv: missing, or not a regular file',
    ],
    [
      'a data file the manifest does not list',
      (directory: string) => writeFileSync(join(directory, 'households.extra.csv'), 'id\r\n'),
      'households.extra.csv: a data file the manifest does not list',
    ],
  ])('refuses %s', async (_what, change, problem) => {
    const directory = await exported();
    change(directory);
    const run = await verify(directory);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'NOT VERIFIED (digest-mismatch): the files differ from the signed manifest:',
    );
    expect(run.stdout).toContain(problem);
  });

  it('refuses a manifest changed after signing, and a key not in the set', async () => {
    const directory = await exported();
    const manifest = manifestOf(directory);
    writeFileSync(
      join(directory, 'manifest.json'),
      JSON.stringify({
        ...manifest,
        files: manifest.files.map((file) => ({ ...file, rows: file.rows + 1 })),
      }),
    );
    expect(await verify(directory)).toMatchObject({
      code: 1,
      stdout: 'NOT VERIFIED (bad-signature): the signature does not match the manifest\n',
    });
    const other = await testSigningKey();
    const otherJwks = join(root, 'other.json');
    writeFileSync(otherJwks, JSON.stringify({ keys: [other.jwk] }));
    expect(await verify(await exported(), otherJwks)).toMatchObject({
      code: 1,
      stdout: `NOT VERIFIED (unknown-key): key ${key.jwk.kid} is not in the key set\n`,
    });
  });

  it('writes an unsigned manifest without a key outside production, which verify-export refuses', async () => {
    const directory = await exported([], {});
    expect(manifestOf(directory).signature).toBeUndefined();
    expect(await verify(directory)).toMatchObject({
      code: 1,
      stdout: 'NOT VERIFIED (unsigned): the manifest is not signed\n',
    });
  });

  it('refuses to export in production without a key, naming the settings, and writes nothing', async () => {
    const directory = join(root, 'production');
    const run = await runCli(['export', directory], { DATABASE_URL: database.url, NODE_ENV: 'production' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SIGNING_KEY: is required in production: an Ed25519 private key in PEM (usually through SIGNING_KEY_FILE); set SIGNING_DISABLED=true to serve unsigned answers',
    );
    expect(() => readdirSync(directory)).toThrow();
  });

  it('never writes the manifest through a link planted at its name', async () => {
    const directory = join(root, 'planted');
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched');
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory);
    symlinkSync(victim, join(directory, 'manifest.json'));
    const run = await runCli(['export', directory], { DATABASE_URL: database.url, SIGNING_KEY: key.pem });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${join(directory, 'manifest.json')}: a symbolic link; export never writes through one`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readdirSync(directory)).toEqual(['manifest.json']);
  });
});

function flipByte(file: string): void {
  const bytes = readFileSync(file);
  bytes[bytes.length - 3] ^= 1;
  writeFileSync(file, bytes);
}
