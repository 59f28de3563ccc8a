import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MetricsModule } from '@dmrv/metrics';
import { Exposition, scrape } from '@dmrv/testing';
// The local chain node is a workspace tool, not a lib: jest maps only @dmrv/<lib> to sources, so it is imported
// by path (its dist is not needed for tests).
import {
  LocalChainNode,
  LocalChainNodeOptions,
  startLocalChainNode,
} from '../../../tools/local-chain-node/src';
import { bootstrap } from '../src/bootstrap';

export { startLocalChainNode };
export type { LocalChainNode };

export interface Gateway {
  app: NestFastifyApplication;
  get(path: string, headers?: Record<string, string>): Promise<GatewayAnswer>;
  close(): Promise<void>;
}

export interface GatewayAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
}

// Latest-height answers are not kept, so that each request of a test reaches the node (the caching tests set it).
export const BASE_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  REFLECTION_REFRESH_MS: '0',
  CACHE_LATEST_TTL_MS: '0',
};

export async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const { app } = await bootstrap({ ...BASE_ENV, ...env });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const inject = async (
    method: string,
    url: string,
    headers: Record<string, string> = {},
  ): Promise<GatewayAnswer> => {
    const response = await app.inject({ method: method as 'GET', url, headers });
    const text = response.body;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: text.length > 0 ? JSON.parse(text) : undefined,
    };
  };
  return {
    app,
    get: (path, headers) => inject('GET', path, headers),
    close: () => app.close(),
  };
}

/** A gateway with its metrics on a port of its own. */
export async function observedGateway(
  env: Record<string, string>,
): Promise<{ gateway: Gateway; metrics: () => Promise<Exposition> }> {
  const gateway = await startGateway({ ...env, METRICS_PORT: '0' });
  const port = gateway.app.get(MetricsModule).listenerPort;
  return { gateway, metrics: () => scrape(`http://127.0.0.1:${port}/metrics`) };
}

export async function startNode(options: LocalChainNodeOptions = {}): Promise<LocalChainNode> {
  return startLocalChainNode({ port: 0, ...options });
}
