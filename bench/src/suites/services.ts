import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { floorScript, repoPath } from '../harness/paths';
import { ManagedProcess } from '../harness/processes';
import { Endpoint, SuiteContext } from './suite';

/**
 * The environment every process starts from: nothing inherited from the caller's shell but PATH, so a developer's
 * LOG_LEVEL or DATABASE_URL cannot change what is measured. Services run as in production (JSON logs at info).
 */
export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    LOG_PRETTY: 'false',
    // The registry signs its answers and export manifests in production; the other processes read no such variable.
    SIGNING_KEY: RUN_SIGNING_KEY,
    ...extra,
  };
}

/** A signing key made for the run (docs/security.md): production refuses to start without one. */
const RUN_SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();

export const SERVICE_BUILDS = {
  registry: {
    main: repoPath('apps', 'registry-api', 'dist', 'main.js'),
    cli: repoPath('apps', 'registry-api', 'dist', 'cli.js'),
  },
  ussd: {
    main: repoPath('apps', 'ussd-gateway', 'dist', 'main.js'),
    cli: repoPath('apps', 'ussd-gateway', 'dist', 'cli.js'),
  },
  protocol: {
    main: repoPath('apps', 'protocol-gateway', 'dist', 'main.js'),
    chainNode: repoPath('tools', 'local-chain-node', 'dist', 'main.js'),
  },
} as const;

export function profileDir(ctx: Pick<SuiteContext, 'logDir'>): string {
  return join(ctx.logDir, 'profiles');
}

let profiled = 0;

/** Starts one of the services on a port it binds itself and waits until its readiness route answers 200. */
export async function startService(
  ctx: SuiteContext,
  name: string,
  script: string,
  env: Record<string, string>,
  readyPath = '/health',
): Promise<Endpoint> {
  const nodeArgs = ctx.options.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir(ctx)}`, `--cpu-prof-name=${name}-${++profiled}.cpuprofile`]
    : [];
  const process = ManagedProcess.start(
    {
      name,
      script,
      env: baseEnv({ ...env, ...ctx.options.serviceEnv, PORT: '0', HOST: '127.0.0.1' }),
      logDir: ctx.logDir,
      nodeArgs,
    },
    ctx.janitor,
  );
  const baseUrl = (await process.waitForAnnouncement()).listening;
  await process.waitForHttp(`${baseUrl}${readyPath}`);
  return { process, baseUrl };
}

/** Starts a floor (bench/dist/floors/*.js) and waits for its `{"listening"}` line. */
export async function startFloor(
  ctx: SuiteContext,
  name: 'registry' | 'ussd' | 'protocol' | 'constant',
  env: Record<string, string>,
): Promise<Endpoint> {
  const process = ManagedProcess.start(
    {
      name: `${name}-floor`,
      script: floorScript(name),
      env: baseEnv({ ...env, PORT: '0' }),
      logDir: ctx.logDir,
    },
    ctx.janitor,
  );
  const [, address] = await process.waitForOutput(/"listening":"(127\.0\.0\.1:\d+)"/);
  return { process, baseUrl: `http://${address}` };
}
