import { Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import type { Root } from 'protobufjs';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { ReflectionMonitor } from '../upstream/reflection-monitor';
import { UpstreamModule } from '../upstream/upstream.module';
import { SKIP_REASONS } from './route-table';
import { REFUSAL_REASONS, ServedRoutes } from './served-routes';

/** The compiled-in descriptors: the chain's query protos of libs/proto. */
export const PROTO_DESCRIPTORS = Symbol('PROTO_DESCRIPTORS');

/**
 * The routes in service and their families: `dmrv_protocol_reflection_refused_total{reason}` and
 * `dmrv_protocol_routes_skipped{reason}`. A reflection refresh replaces the table.
 */
function servedRoutes(
  config: ProtocolGatewayConfig,
  root: Root,
  reflection: ReflectionMonitor,
  metrics: Metrics,
): ServedRoutes {
  const refused = metrics.counter(
    'dmrv_protocol_reflection_refused_total',
    "Sets of the node's descriptors not used (the routes in service stayed), by reason",
    ['reason'],
  );
  for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
  const served = new ServedRoutes(root, QUERY_SERVICES, {
    prefix: config.PROTOCOL_PREFIX,
    maxReflectedRoutes: config.REFLECTION_MAX_ROUTES,
    onRefused: (reason) => refused.inc({ reason }),
  });
  metrics.gauge({
    name: 'dmrv_protocol_routes_skipped',
    help: 'HTTP bindings the node advertises that the gateway does not serve, by reason',
    labelNames: ['reason'],
    collect: (gauge) => {
      for (const reason of SKIP_REASONS) {
        const count = served.current.skipped.filter((binding) => binding.reason === reason).length;
        gauge.set({ reason }, count);
      }
    },
  });
  reflection.onRefresh((state) => served.update(state));
  return served;
}

/** The route table in service: compiled-in descriptors, replaced by the node's when reflection describes them. */
@Module({
  imports: [UpstreamModule],
  providers: [
    { provide: PROTO_DESCRIPTORS, useFactory: () => loadProtoRoot(QUERY_PROTO_FILES) },
    {
      provide: ServedRoutes,
      inject: [ProtocolGatewayConfig, PROTO_DESCRIPTORS, ReflectionMonitor, Metrics],
      useFactory: servedRoutes,
    },
  ],
  exports: [ServedRoutes],
})
export class RoutesModule {}
