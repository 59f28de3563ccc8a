import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig, readVariable } from '@dmrv/config';
import { REPO_ROOT } from '@dmrv/testing';
import { APP_SERVICES, readCompose } from './stack-files';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'deploy', 'compose-secrets.sh');

/** A compose service's environment as the container sees it: defaults of `${VAR:-default}`, secrets under `dir`. */
function containerEnv(environment: Record<string, string | number>, dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [
      name,
      String(value)
        .replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')
        .replace(/^\/run\/secrets\//, `${dir}/`),
    ]),
  );
}

// deploy/compose-secrets.sh writes the files docker-compose.yml mounts; this runs it and feeds the result, through
// each service's own *_FILE variables, to the configuration the service validates at start-up.
describe('deploy/compose-secrets.sh and the compose secrets', () => {
  const { parsed } = readCompose();
  let dir: string;

  beforeAll(async () => {
    dir = join(mkdtempSync(join(tmpdir(), 'dmrv-compose-secrets-')), 'secrets');
    await run('sh', [SCRIPT, dir]);
  });

  afterAll(() => {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  const read = (name: string) => readFileSync(join(dir, name), 'utf8').trim();

  it('writes every secret compose declares, readable by the containers, in a directory only its owner can list', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(parsed.secrets ?? {}).sort());
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir))
      expect({ name, mode: statSync(join(dir, name)).mode & 0o777 }).toEqual({ name, mode: 0o644 });
  });

  it('makes fresh random passwords and key, and URLs that carry them, one role and one Redis user per service', () => {
    const passwords = [
      'postgres_password',
      'registry_owner_password',
      'registry_reader_password',
      'ussd_database_password',
    ];
    for (const name of passwords)
      expect({ name, value: read(name) }).toEqual({
        name,
        value: expect.stringMatching(/^[0-9a-f]{48}$/) as string,
      });
    expect(new Set(passwords.map(read)).size).toBe(passwords.length);
    expect(read('pin_encryption_key')).toMatch(/^[0-9a-f]{64}$/);
    // No service connects as the superuser (postgres_password is PostgreSQL's alone).
    expect(read('registry_owner_database_url')).toBe(
      `postgres://registry_owner:${read('registry_owner_password')}@postgres:5432/dmrv_registry`,
    );
    expect(read('ussd_database_url')).toBe(
      `postgres://ussd_gateway:${read('ussd_database_password')}@postgres:5432/dmrv_ussd`,
    );
    expect(read('registry_reader_database_url')).toBe(
      `postgres://registry_reader:${read('registry_reader_password')}@postgres:5432/dmrv_registry`,
    );
    expect(read('redis_password')).toMatch(/^[0-9a-f]{48}$/);
    const redisUrl = new URL(read('ussd_redis_url'));
    expect(redisUrl).toMatchObject({
      protocol: 'redis:',
      username: 'ussd-gateway',
      host: 'redis:6379',
      pathname: '/0',
    });
    expect(redisUrl.password).toMatch(/^[0-9a-f]{48}$/);
    // The ACL file holds each password's SHA-256 only (Redis's `#<hash>` form), never a password itself.
    const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
    const [health, gateway, ...more] = read('redis_users_acl').split('\n');
    expect(more).toEqual([]);
    expect(health).toBe(
      `user default on #${sha256(read('redis_password'))} resetkeys resetchannels -@all +ping +info`,
    );
    expect(gateway).toMatch(
      new RegExp(
        `^user ussd-gateway on #${sha256(redisUrl.password)} resetkeys ~ussd:\\* resetchannels -@all \\+`,
      ),
    );
    expect(read('redis_users_acl')).not.toContain(read('redis_password'));
    expect(read('redis_users_acl')).not.toContain(redisUrl.password);
    expect(read('ussd_events_token')).toMatch(/^[0-9a-f]{48}$/);
    expect(read('ussd_operator_token')).toBe('');
    expect(read('protocol_api_keys')).toBe('');
  });

  it('refuses to write the Redis users next to a gateway URL of an earlier version, naming it', async () => {
    const other = join(dir, '..', 'earlier');
    await run('sh', [
      '-c',
      `mkdir -p "${other}" && echo 'redis://:abc@redis:6379/0' > "${other}/ussd_redis_url"`,
    ]);
    const failed = await run('sh', [SCRIPT, other]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect({ code: failed?.code, stderr: failed?.stderr }).toEqual({
      code: 1,
      stderr: `${other}/ussd_redis_url is not redis://ussd-gateway:<password>@…: delete it too, and run again\n`,
    });
  });

  it('keeps every existing file on a second run (the database keeps its first passwords)', async () => {
    const before = readdirSync(dir).map((name) => [name, read(name)]);
    const { stdout } = await run('sh', [SCRIPT, dir]);
    expect(readdirSync(dir).map((name) => [name, read(name)])).toEqual(before);
    expect(stdout.split('\n').filter((line) => line.startsWith('kept')).length).toBe(before.length);
  });

  it.each(APP_SERVICES.map((entry) => [entry.service, entry] as const))(
    '%s starts with its compose environment and the secret files',
    (service, { config }) => {
      const env = containerEnv(parsed.services[service]!.environment ?? {}, dir);
      expect(() => loadConfig(service, config as new () => object, env)).not.toThrow();
    },
  );

  it('the migration jobs and the registry CLI read the owner URL of their database', () => {
    const url = (service: string) =>
      readVariable(service, 'DATABASE_URL', containerEnv(parsed.services[service]!.environment ?? {}, dir));
    expect(url('registry-migrate')).toBe(read('registry_owner_database_url'));
    expect(url('registry-cli')).toBe(read('registry_owner_database_url'));
    expect(url('ussd-migrate')).toBe(read('ussd_database_url'));
  });

  it('refuses a password that would need percent-encoding in a URL, naming the file', async () => {
    const other = join(dir, '..', 'other');
    await run('sh', [
      '-c',
      `mkdir -p "${other}" && printf 'p@ss/word\\n' > "${other}/registry_owner_password"`,
    ]);
    const failed = await run('sh', [SCRIPT, other]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      `${other}/registry_owner_password holds characters that need percent-encoding in a URL; write the *_database_url files yourself\n`,
    );
    expect(failed?.stderr).not.toContain('p@ss');
  });
});
