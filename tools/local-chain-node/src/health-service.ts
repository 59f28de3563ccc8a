import { Server, ServerUnaryCall, ServerWritableStream, sendUnaryData, status } from '@grpc/grpc-js';
import { HEALTH_SERVICE } from '@dmrv/proto';
import type { Message, Root } from 'protobufjs';
import { definitionOf } from './service-definition';

const SERVING = 1;
const SERVICE_UNKNOWN = 3;

/** gRPC health: the node (`''`) and each of `served` are SERVING; any other service is unknown. */
export function addHealth(server: Server, root: Root, served: readonly string[]): void {
  const healthStatus = (name: string): number | undefined =>
    name === '' || served.includes(name) ? SERVING : undefined;
  server.addService(definitionOf(root.lookupService(HEALTH_SERVICE)), {
    Check: (
      call: ServerUnaryCall<Message & { service?: string }, unknown>,
      callback: sendUnaryData<unknown>,
    ) => {
      const serving = healthStatus(call.request.service ?? '');
      if (serving === undefined) callback({ code: status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: serving });
    },
    Watch: (call: ServerWritableStream<Message & { service?: string }, unknown>) => {
      call.write({ status: healthStatus(call.request.service ?? '') ?? SERVICE_UNKNOWN });
      call.on('cancelled', () => call.end());
    },
  });
}
