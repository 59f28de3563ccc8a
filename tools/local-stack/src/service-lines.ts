import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { firstJsonLine, ManagedProcess, runToCompletion } from './processes';
import { StackSettings } from './settings';

// The stack's three independent lines, each from its database (or upstream) to its running service.

/** The repository root: the services' dist/ paths are relative to it, and it is every process's working directory. */
export const ROOT = join(__dirname, '..', '..', '..');

/** Where a running service answers, and where its metrics are. */
export interface Listening {
  url: string;
  metrics: string;
}

/** What a line needs of the stack: settings, the common environment, databases and processes it keeps track of. */
export interface StackHost {
  readonly settings: StackSettings;
  baseEnv(): NodeJS.ProcessEnv;
  /** The configured database URL, or an embedded database started (and stopped with the stack). */
  database(configured: string | undefined): Promise<string>;
  start(name: string, script: string, env: NodeJS.ProcessEnv): ManagedProcess;
}

/** Registry: schema, a small deterministic data set and a development API client, then the service. */
export async function registryLine(stack: StackHost): Promise<{
  managed: ManagedProcess;
  client: { client_id: string; secret: string };
}> {
  const { host, ports, metricsPorts } = stack.settings;
  const registryDb = await stack.database(stack.settings.registryDatabaseUrl);
  const registryCli = join('apps', 'registry-api', 'dist', 'cli.js');
  const registryEnv = { ...stack.baseEnv(), DATABASE_URL: registryDb, DATABASE_POOL_SIZE: '4' };
  await runToCompletion('registry-api', [registryCli, 'migrate'], registryEnv, ROOT);
  if (!stack.settings.registryDatabaseUrl) {
    await runToCompletion(
      'registry-api',
      [registryCli, 'seed', '--households', String(stack.settings.seedHouseholds), '--seed', '42'],
      registryEnv,
      ROOT,
    );
  }
  const clientLine = await runToCompletion(
    'registry-api',
    [registryCli, 'clients', 'create', '--name', `local-dev-${Date.now()}`, '--json'],
    registryEnv,
    ROOT,
  );
  const client = JSON.parse(clientLine.trim().split('\n').pop() ?? '{}') as {
    client_id: string;
    secret: string;
  };
  // A development key for this run only: answers signed earlier no longer verify once the stack restarts.
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const managed = stack.start('registry-api', join('apps', 'registry-api', 'dist', 'main.js'), {
    ...registryEnv,
    SIGNING_KEY: signingKey,
    PORT: String(ports.registry),
    HOST: host,
    METRICS_PORT: String(metricsPorts.registry),
  });
  return { managed, client };
}

/** USSD: its schema, then the service. */
export async function ussdLine(stack: StackHost): Promise<ManagedProcess> {
  const { host, ports, metricsPorts } = stack.settings;
  const ussdDb = await stack.database(stack.settings.ussdDatabaseUrl);
  const ussdEnv: NodeJS.ProcessEnv = {
    ...stack.baseEnv(),
    DATABASE_URL: ussdDb,
    DATABASE_POOL_SIZE: '4',
    PORT: String(ports.ussd),
    HOST: host,
    METRICS_PORT: String(metricsPorts.ussd),
    // A fresh key per run is safe only because the embedded database is fresh too.
    PIN_ENCRYPTION_KEY: stack.settings.pinEncryptionKey ?? freshKeyForEmbeddedDatabase(stack.settings),
    SIMULATOR_ENABLED: 'true',
    ...(stack.settings.redisUrl ? { REDIS_URL: stack.settings.redisUrl } : {}),
  };
  await runToCompletion(
    'ussd-gateway',
    [join('apps', 'ussd-gateway', 'dist', 'cli.js'), 'migrate'],
    ussdEnv,
    ROOT,
  );
  return stack.start('ussd-gateway', join('apps', 'ussd-gateway', 'dist', 'main.js'), ussdEnv);
}

/** Protocol: the local chain node unless an upstream is given, then the gateway. */
export async function protocolLine(stack: StackHost): Promise<{ managed: ManagedProcess; upstream: string }> {
  const { host, ports, metricsPorts } = stack.settings;
  let upstream = stack.settings.grpcUpstream;
  if (!upstream) {
    const node = stack.start('local-chain-node', join('tools', 'local-chain-node', 'dist', 'main.js'), {
      ...stack.baseEnv(),
      CHAIN_NODE_HOST: host,
      CHAIN_NODE_PORT: String(ports.chainNode),
    });
    upstream = (await firstJsonLine<{ listening: string }>(node, 30_000)).listening;
  }
  const managed = stack.start('protocol-gateway', join('apps', 'protocol-gateway', 'dist', 'main.js'), {
    ...stack.baseEnv(),
    PORT: String(ports.protocol),
    HOST: host,
    METRICS_PORT: String(metricsPorts.protocol),
    GRPC_UPSTREAM: upstream,
  });
  return { managed, upstream };
}

/** A fresh PIN key: safe only for a fresh (embedded) USSD database. */
function freshKeyForEmbeddedDatabase(settings: StackSettings): string {
  if (settings.ussdDatabaseUrl) {
    throw new Error('PIN_ENCRYPTION_KEY is required when USSD_DATABASE_URL points at a persistent database');
  }
  return randomBytes(32).toString('hex');
}
