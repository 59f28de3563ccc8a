import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { readCompose } from '../stack-files';
import { interpolate } from './compose-runner';
import { podman, podmanOk, podmanStreaming } from './podman';

/** Label on everything the container tier creates, so a run cleans up after an earlier one that crashed. */
export const TIER_LABEL = 'dmrv.containers-tier';

/**
 * The third-party images docker-compose.yml and the dev overlay name, and the local stand-ins
 * scripts/containers/setup.sh builds for them from Debian's packages (no CI machine can pull an image).
 */
export const STAND_INS: Record<string, string> = {
  'postgres:17-alpine': 'localhost/dmrv-ci/postgres:standin',
  'redis:7-alpine': 'localhost/dmrv-ci/redis:standin',
};

export interface BuiltImage {
  service: string;
  image: string;
  dockerfile: string;
  bytes: number;
  seconds: number;
}

/** The commit the tier builds, as a release build states it (BUILD_COMMIT, read into dmrv_build_info). */
export const BUILT_COMMIT = execFileSync('git', ['rev-parse', 'HEAD'], {
  cwd: REPO_ROOT,
  encoding: 'utf8',
}).trim();

/**
 * Our images as compose builds them: one per Dockerfile, tagged with the image name compose runs (its
 * `${IMAGE_REGISTRY:-…}` settings at their defaults, as the tier runs compose), with compose's build arguments as
 * `BUILD_COMMIT=$(git rev-parse HEAD) docker compose build` gives them.
 */
export function composeBuilds(): Array<{
  service: string;
  image: string;
  dockerfile: string;
  args: Record<string, string>;
}> {
  const { parsed } = readCompose();
  const env = { BUILD_COMMIT: BUILT_COMMIT };
  return Object.entries(parsed.services)
    .filter(([, service]) => service.build !== undefined)
    .map(([service, definition]) => ({
      service,
      image: interpolate(definition.image!, {}),
      dockerfile: join(definition.build!.context, definition.build!.dockerfile),
      args: Object.fromEntries(
        Object.entries(definition.build!.args ?? {}).map(([name, value]) => [name, interpolate(value, env)]),
      ),
    }));
}

/**
 * Builds an image from the repository root with the production Dockerfile, unchanged: --pull=never (the base is the
 * local one setup.sh made under the Dockerfiles' NODE_IMAGE name) and, when the machine trusts an extra CA for the
 * npm registry, that bundle as the build secret `ca`.
 */
export async function buildImage(
  build: { service: string; image: string; dockerfile: string; args?: Record<string, string> },
  log: (line: string) => void,
): Promise<BuiltImage> {
  const args = [
    'build',
    '--pull=never',
    '--layers',
    // Docker's image format: buildah's default (OCI) drops HEALTHCHECK, which Docker and compose run.
    '--format',
    'docker',
    '-f',
    join(REPO_ROOT, build.dockerfile),
    '-t',
    build.image,
  ];
  for (const [name, value] of Object.entries(build.args ?? {})) args.push('--build-arg', `${name}=${value}`);
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (ca && existsSync(ca)) args.push('--secret', `id=ca,src=${ca}`);
  args.push(REPO_ROOT);
  const started = Date.now();
  const code = await podmanStreaming(args, (line) => {
    if (/^(STEP|COMMIT|Successfully|Error|error)/.test(line)) log(`${build.service}: ${line}`);
  }).catch(() => 1);
  if (code !== 0) throw new Error(`podman build of ${build.dockerfile} exited ${code}`);
  const bytes = Number((await podmanOk(['image', 'inspect', '--format', '{{.Size}}', build.image])).trim());
  return { ...build, bytes, seconds: Math.round((Date.now() - started) / 1000) };
}

/** The HEALTHCHECK an image declares, as the command podman exec runs. */
export async function imageHealthcheck(image: string): Promise<string[]> {
  const test = JSON.parse(
    (await podmanOk(['image', 'inspect', '--format', '{{json .Config.Healthcheck.Test}}', image])).trim(),
  ) as string[];
  if (test[0] !== 'CMD') throw new Error(`${image}: HEALTHCHECK ${JSON.stringify(test)} is not in exec form`);
  return test.slice(1);
}

/** The package directories of a deployed image's node_modules/.pnpm (name@version_peers). */
export async function installedPackages(image: string): Promise<string[]> {
  const listing = await podman([
    'run',
    '--rm',
    '--label',
    `${TIER_LABEL}=images`,
    '--entrypoint',
    'ls',
    image,
    '/app/node_modules/.pnpm',
  ]);
  if (listing.code !== 0) throw new Error(`${image}: ${listing.stderr}`);
  return listing.stdout
    .split('\n')
    .filter((entry) => entry !== '' && entry !== 'node_modules' && entry !== 'lock.yaml');
}
