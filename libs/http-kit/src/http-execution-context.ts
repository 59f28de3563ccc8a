import type { ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The view of an HTTP request Nest gives its exception filters (`ArgumentsHost`), for a route an app registers on
 * Fastify itself: its errors go through the app's one filter and are rendered like every other route's.
 */
export function httpExecutionContext(request: FastifyRequest, reply: FastifyReply): ExecutionContext {
  const args = [request, reply, undefined];
  const http = { getRequest: () => request, getResponse: () => reply, getNext: () => undefined };
  const notHere = (kind: string) => (): never => {
    throw new Error(`not a ${kind} context`);
  };
  return {
    getClass: () => undefined,
    getHandler: () => undefined,
    getArgs: () => args,
    getArgByIndex: (index: number) => args[index],
    getType: () => 'http',
    switchToHttp: () => http,
    switchToRpc: notHere('RPC'),
    switchToWs: notHere('WebSocket'),
  } as unknown as ExecutionContext;
}
