import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildInfo, registerBuildInfo } from './build-info';

describe('buildInfo', () => {
  let appRoot: string;

  beforeAll(() => {
    appRoot = mkdtempSync(join(tmpdir(), 'dmrv-build-info-'));
    writeFileSync(join(appRoot, 'package.json'), JSON.stringify({ name: '@dmrv/example', version: '1.4.2' }));
  });

  afterAll(() => rmSync(appRoot, { recursive: true, force: true }));

  it('takes what the image was built with', () => {
    expect(
      buildInfo(appRoot, {
        DMRV_BUILD_VERSION: '1.5.0-rc.1',
        DMRV_BUILD_COMMIT: '802045e0123456789abcdef0123456789abcdef0',
      }),
    ).toEqual({ version: '1.5.0-rc.1', commit: '802045e0123456789abcdef0123456789abcdef0' });
  });

  it.each([
    [{}],
    [{ DMRV_BUILD_VERSION: '', DMRV_BUILD_COMMIT: '' }],
    [{ DMRV_BUILD_VERSION: 'not a version', DMRV_BUILD_COMMIT: 'HEAD; rm -rf /' }],
  ])('falls back to the package version and an unknown commit for %j', (env) => {
    expect(buildInfo(appRoot, env)).toEqual({ version: '1.4.2', commit: 'unknown' });
  });

  it('is exported as dmrv_build_info{version, commit} 1', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, { version: '1.4.2', commit: 'abc1234' });
    expect(await registry.metrics()).toContain('dmrv_build_info{version="1.4.2",commit="abc1234"} 1');
  });
});
