import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { APP_SERVICES, requiredVariables } from './stack-files';

// The real entry point, as an operator runs it: a missing or malformed variable stops the process with
// exit code 1 and a message that names it (and never echoes a value).
describe.each(APP_SERVICES.map((entry) => [entry.app, entry] as const))('%s start-up configuration', (app, { config }) => {
  const main = join(REPO_ROOT, 'apps', app, 'dist', 'main.js');
  const run = (env: Record<string, string>) => {
    if (!existsSync(main)) throw new Error(`${main} is missing: build first (pnpm run build)`);
    return spawnSync(process.execPath, [main], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
  };

  it('exits 1 naming every required variable when none is set', () => {
    const result = run({});
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${app}: invalid configuration`);
    for (const variable of requiredVariables(config)) expect(result.stderr).toContain(`  - ${variable}: is required`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 naming a malformed variable without printing its value', () => {
    const result = run({ PORT: 'not-a-port-s3cr3t' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/ {2}- PORT: /);
    expect(result.stderr).not.toContain('not-a-port-s3cr3t');
  });
});
