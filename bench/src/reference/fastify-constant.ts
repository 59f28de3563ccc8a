import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { CONSTANT_ANSWER, requireEnv } from '../floors/floor-server';

/**
 * The framework reference's first ceiling: bare Fastify, as it comes (its own logger off, no hook, no plugin), one
 * route answering the constant. Against the `node:http` floor it says what the HTTP framework alone costs; no app
 * of ours, which all run on Fastify, can be cheaper per request.
 */
async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/constant', () => CONSTANT_ANSWER);
  app.get('/health', () => ({ status: 'ok' }));
  await app.listen({ port: Number(requireEnv('PORT')), host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  process.send?.({ listening: `http://127.0.0.1:${port}` });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
