import { Metadata, status } from '@grpc/grpc-js';
import { DependencyProbe } from '@dmrv/health';
import { HEALTH_PROTO_FILE, HEALTH_SERVICE, loadProtoRoot } from '@dmrv/proto';
import { UpstreamCallError, UpstreamClient } from './upstream-client';
import { UpstreamPool } from './upstream-pool';

export const UPSTREAM_PROBE_TIMEOUT_MS = 1500;

/**
 * One node's health: the standard gRPC health service answers SERVING. A node without the health service
 * (UNIMPLEMENTED) that answers at all counts as up: the channel works. Throws `<host:port>: <reason>`.
 */
export function upstreamHealthCheck(
  timeoutMs = UPSTREAM_PROBE_TIMEOUT_MS,
): (upstream: UpstreamClient) => Promise<void> {
  const root = loadProtoRoot([HEALTH_PROTO_FILE]);
  const requestType = root.lookupType('grpc.health.v1.HealthCheckRequest');
  const responseType = root.lookupType('grpc.health.v1.HealthCheckResponse');
  const request = Buffer.from(requestType.encode(requestType.create({ service: '' })).finish());
  return async (upstream) => {
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
      if (answer.status !== 'SERVING')
        throw new Error(`${upstream.target}: upstream health is ${answer.status ?? 'UNKNOWN'}`);
    } catch (error) {
      if (error instanceof UpstreamCallError) {
        if (error.code === status.UNIMPLEMENTED) return;
        throw new Error(`${upstream.target}: ${status[error.code] ?? error.code}`);
      }
      throw error;
    }
  };
}

/** Readiness of the chain nodes: ready while at least one of them is; the error names every node that is not. */
export function upstreamProbe(
  pool: UpstreamPool,
  check: (upstream: UpstreamClient) => Promise<void> = upstreamHealthCheck(),
  timeoutMs = UPSTREAM_PROBE_TIMEOUT_MS,
): DependencyProbe {
  return {
    name: 'upstream',
    timeoutMs: timeoutMs + 500,
    check: async () => {
      const outcomes = await pool.checkHealth(check);
      if (outcomes.some((outcome) => outcome.status === 'fulfilled')) return;
      throw new Error(
        outcomes
          .map((outcome) =>
            outcome.status === 'rejected'
              ? outcome.reason instanceof Error
                ? outcome.reason.message
                : String(outcome.reason)
              : '',
          )
          .join('; '),
      );
    },
  };
}
