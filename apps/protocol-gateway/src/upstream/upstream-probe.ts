import { Metadata, status } from '@grpc/grpc-js';
import { DependencyProbe } from '@dmrv/health';
import { HEALTH_PROTO_FILE, HEALTH_SERVICE, loadProtoRoot } from '@dmrv/proto';
import { UpstreamCallError, UpstreamClient } from './upstream-client';

/**
 * Readiness of the chain node: the standard gRPC health service answers SERVING over the shared channel. A node
 * without the health service (UNIMPLEMENTED) that answers at all counts as up: the channel works.
 */
export function upstreamProbe(upstream: UpstreamClient, timeoutMs = 1500): DependencyProbe {
  const root = loadProtoRoot([HEALTH_PROTO_FILE]);
  const requestType = root.lookupType('grpc.health.v1.HealthCheckRequest');
  const responseType = root.lookupType('grpc.health.v1.HealthCheckResponse');
  const request = Buffer.from(requestType.encode(requestType.create({ service: '' })).finish());
  return {
    name: 'upstream',
    timeoutMs: timeoutMs + 500,
    check: async () => {
      try {
        const { response } = await upstream.unary(
          `/${HEALTH_SERVICE}/Check`,
          request,
          new Metadata(),
          timeoutMs,
        );
        const answer = responseType.toObject(responseType.decode(response), { enums: String }) as {
          status?: string;
        };
        if (answer.status !== 'SERVING') throw new Error(`upstream health is ${answer.status ?? 'UNKNOWN'}`);
      } catch (error) {
        if (error instanceof UpstreamCallError) {
          if (error.code === status.UNIMPLEMENTED) return;
          throw new Error(`${upstream.target}: ${status[error.code] ?? error.code}`);
        }
        throw error;
      }
    },
  };
}
