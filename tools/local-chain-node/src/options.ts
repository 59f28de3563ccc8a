import { readFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { EXTRA_MODULES, ExtraModule, LocalChainNodeOptions } from './chain-node';

export class ChainNodeConfigError extends Error {}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > max)
    throw new ChainNodeConfigError(`${name}: must be an integer from 0 to ${max}`);
  return Number(raw);
}

function statusCode(text: string): status | undefined {
  if (/^\d+$/.test(text)) {
    const code = Number(text);
    return code >= 1 && code <= 16 ? (code as status) : undefined;
  }
  const named = (status as unknown as Record<string, number | undefined>)[text.toUpperCase()];
  return typeof named === 'number' && named !== 0 ? (named as status) : undefined;
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    throw new ChainNodeConfigError(`${variable}: cannot read the file`);
  }
}

/** `CHAIN_NODE_*` variables → options; an invalid value throws, naming the variable. */
export function optionsFromEnv(
  env: NodeJS.ProcessEnv,
): LocalChainNodeOptions & { host: string; port: number } {
  const failures = new Map<string, status>();
  for (const entry of list(env.CHAIN_NODE_FAIL)) {
    const [selector, code] = entry.split('=');
    const parsed = code === undefined ? undefined : statusCode(code.trim());
    if (!selector || parsed === undefined) {
      throw new ChainNodeConfigError(
        'CHAIN_NODE_FAIL: entries must be selector=CODE, e.g. token=UNAVAILABLE or *=INTERNAL',
      );
    }
    failures.set(selector.trim(), parsed);
  }
  const certFile = env.CHAIN_NODE_TLS_CERT_FILE?.trim();
  const keyFile = env.CHAIN_NODE_TLS_KEY_FILE?.trim();
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ChainNodeConfigError(
      'CHAIN_NODE_TLS_CERT_FILE and CHAIN_NODE_TLS_KEY_FILE: set both or neither',
    );
  }
  const extraModules = list(env.CHAIN_NODE_EXTRA_MODULES ?? 'bank');
  const unknownModule = extraModules.find((name) => !(name in EXTRA_MODULES));
  if (unknownModule !== undefined)
    throw new ChainNodeConfigError(
      `CHAIN_NODE_EXTRA_MODULES: unknown module; choose from ${Object.keys(EXTRA_MODULES).join(', ')}`,
    );
  const reflection = (env.CHAIN_NODE_REFLECTION ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0'].includes(reflection))
    throw new ChainNodeConfigError('CHAIN_NODE_REFLECTION: must be true or false');
  return {
    host: env.CHAIN_NODE_HOST?.trim() || '127.0.0.1',
    port: integer(env, 'CHAIN_NODE_PORT', 9090, 65535),
    omitServices: list(env.CHAIN_NODE_OMIT_SERVICES),
    delayMs: integer(env, 'CHAIN_NODE_DELAY_MS', 0, 600_000),
    slowMethods: list(env.CHAIN_NODE_SLOW_METHODS),
    failures,
    reflection: reflection === 'true' || reflection === '1',
    extraModules: extraModules as ExtraModule[],
    blockHeight: env.CHAIN_NODE_BLOCK_HEIGHT
      ? integer(env, 'CHAIN_NODE_BLOCK_HEIGHT', 0, Number.MAX_SAFE_INTEGER)
      : undefined,
    earliestHeight: env.CHAIN_NODE_EARLIEST_HEIGHT
      ? integer(env, 'CHAIN_NODE_EARLIEST_HEIGHT', 1, Number.MAX_SAFE_INTEGER)
      : undefined,
    ...(certFile && keyFile
      ? {
          tls: {
            certChain: readPem(certFile, 'CHAIN_NODE_TLS_CERT_FILE'),
            privateKey: readPem(keyFile, 'CHAIN_NODE_TLS_KEY_FILE'),
          },
        }
      : {}),
  };
}
