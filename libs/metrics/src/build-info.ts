import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gauge, Registry } from 'prom-client';

/** What is running: the release and the commit it was built from. */
export interface BuildInfo {
  version: string;
  commit: string;
}

export const UNKNOWN_COMMIT = 'unknown';

const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;
const COMMIT = /^[0-9a-f]{7,40}$/;

/**
 * The build of the app whose package.json is in `appRoot`: DMRV_BUILD_VERSION and DMRV_BUILD_COMMIT, which the
 * Dockerfiles set from their build arguments (BUILD_VERSION, BUILD_COMMIT), else the package's version and `unknown`
 * (a build without them, `npm start`). Not configuration, a statement of the image: a malformed value is not a reason
 * to stop a service, so it counts as absent.
 */
export function buildInfo(appRoot: string, env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const version = env.DMRV_BUILD_VERSION ?? '';
  const commit = env.DMRV_BUILD_COMMIT ?? '';
  return {
    version: VERSION.test(version)
      ? version
      : (JSON.parse(readFileSync(join(appRoot, 'package.json'), 'utf8')) as { version: string }).version,
    commit: COMMIT.test(commit) ? commit : UNKNOWN_COMMIT,
  };
}

/**
 * `dmrv_build_info{version, commit} 1`, the usual info-metric shape: joined on its labels, it says which release each
 * series came from, and two values during a rollout that never ends are an alert (DmrvVersionsMixed).
 */
export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  new Gauge({
    name: 'dmrv_build_info',
    help: 'The running build: the release version and the commit it was built from (always 1)',
    labelNames: ['version', 'commit'],
    registers: [registry],
  }).set({ version: info.version, commit: info.commit }, 1);
}
