import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { EVENTS_SENDER_REQUIRED } from '../apps/ussd-gateway/src/config/ussd.config';
import { APP_SERVICES, productionRequirements } from './stack-files';

// The real entry point, as an operator runs it: a missing or malformed variable stops the process with
// exit code 1 and a message that names it (and never echoes a value).
describe.each(APP_SERVICES.map((entry) => [entry.app, entry] as const))(
  '%s start-up configuration',
  (app, { service, config }) => {
    const main = join(REPO_ROOT, 'apps', app, 'dist', 'main.js');
    const run = (env: Record<string, string>) => {
      if (!existsSync(main)) throw new Error(`${main} is missing: build first (pnpm run build)`);
      return spawnSync(process.execPath, [main], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
        timeout: 20_000,
      });
    };

    it('exits 1 under NODE_ENV=production naming every variable production requires, when none is set', () => {
      const result = run({ NODE_ENV: 'production' });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`${app}: invalid configuration`);
      const required = productionRequirements(service, config);
      expect(required.length).toBeGreaterThan(0);
      for (const variable of required) expect(result.stderr).toContain(`  - ${variable}: is required`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    it('exits 1 naming a malformed variable without printing its value', () => {
      const result = run({ PORT: 'not-a-port-s3cr3t' });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/ {2}- PORT: /);
      expect(result.stderr).not.toContain('not-a-port-s3cr3t');
    });
  },
);

// The aggregator's session-end notifications in production: an endpoint nobody may post to is a start-up error, like
// a missing secret, not a warning followed by a 403 for every genuine notification.
describe('ussd-gateway events endpoint under NODE_ENV=production', () => {
  const main = join(REPO_ROOT, 'apps', 'ussd-gateway', 'dist', 'main.js');
  const valid = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_ussd',
    PIN_ENCRYPTION_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  };

  it('exits 1 with neither EVENTS_TOKEN nor EVENTS_ALLOWED_CIDRS, naming the settings, the endpoint not turned off', () => {
    if (!existsSync(main)) throw new Error(`${main} is missing: build first (pnpm run build)`);
    const result = spawnSync(process.execPath, [main], {
      env: { PATH: process.env.PATH, ...valid },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: `ussd-gateway: invalid configuration\n  - EVENTS_TOKEN: ${EVENTS_SENDER_REQUIRED}\n`,
    });
  });
});

// A variable removed from a service that an operator still sets: the process stops and says what replaced it, instead
// of ignoring a setting the operator believes is in force.
describe('ussd-gateway removed variables', () => {
  const main = join(REPO_ROOT, 'apps', 'ussd-gateway', 'dist', 'main.js');
  const valid = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_ussd',
    PIN_ENCRYPTION_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  };

  it.each([
    [
      'PIN_HASH_NICE',
      "was removed: PIN hashes run on libuv's thread pool at the process's priority. Unset it; to leave the event loop more CPU, lower PIN_HASH_CONCURRENCY",
    ],
    [
      'PIN_HASH_CONCURRENCY_IDLE',
      "was removed: PIN_HASH_CONCURRENCY is the one limit on PIN hashes at once, whatever the event loop's load. Unset it and set PIN_HASH_CONCURRENCY to the number of hashes to run at once",
    ],
  ])('exits 1 while %s is set, saying what to do', (variable, guidance) => {
    if (!existsSync(main)) throw new Error(`${main} is missing: build first (pnpm run build)`);
    const result = spawnSync(process.execPath, [main], {
      env: { PATH: process.env.PATH, ...valid, [variable]: '2' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: `ussd-gateway: invalid configuration\n  - ${variable}: ${guidance}\n`,
    });
  });
});
