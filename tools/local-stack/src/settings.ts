export interface StackSettings {
  host: string;
  ports: { registry: number; ussd: number; protocol: number; chainNode: number };
  /** Each service's separate `/metrics` listener (METRICS_PORT). */
  metricsPorts: { registry: number; ussd: number; protocol: number };
  registryDatabaseUrl?: string;
  ussdDatabaseUrl?: string;
  redisUrl?: string;
  grpcUpstream?: string;
  pinEncryptionKey?: string;
  seedHouseholds: number;
  logLevel: string;
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  what: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`${name} must be ${what}`);
  return value;
}

// 0 lets the service bind any free port; the stack learns and prints the bound one (how the tests run it).
const port = (env: NodeJS.ProcessEnv, name: string, fallback: number) =>
  integer(env, name, fallback, 0, 65535, 'a port number');

/** `npm start`'s settings: ports, the external services to use instead of embedded ones, the seed size. */
export function settingsFromEnv(env: NodeJS.ProcessEnv): StackSettings {
  return {
    host: '127.0.0.1',
    ports: {
      registry: port(env, 'REGISTRY_PORT', 3001),
      ussd: port(env, 'USSD_PORT', 3000),
      protocol: port(env, 'PROTOCOL_PORT', 3002),
      chainNode: port(env, 'CHAIN_NODE_PORT', 9090),
    },
    metricsPorts: {
      registry: port(env, 'REGISTRY_METRICS_PORT', 9301),
      ussd: port(env, 'USSD_METRICS_PORT', 9300),
      protocol: port(env, 'PROTOCOL_METRICS_PORT', 9302),
    },
    registryDatabaseUrl: env.REGISTRY_DATABASE_URL || undefined,
    ussdDatabaseUrl: env.USSD_DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    grpcUpstream: env.GRPC_UPSTREAM || undefined,
    pinEncryptionKey: env.PIN_ENCRYPTION_KEY || undefined,
    seedHouseholds: integer(
      env,
      'LOCAL_SEED_HOUSEHOLDS',
      500,
      1,
      Number.MAX_SAFE_INTEGER,
      'a positive integer',
    ),
    logLevel: env.LOG_LEVEL || 'info',
  };
}
