import { DynamicModule, Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HealthModule } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { Metrics, MetricsModule } from '@dmrv/metrics';
import { Tracing, TracingModule } from '@dmrv/tracing';
import { loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import type { Root } from 'protobufjs';
import { AccessPolicy, parseApiKeys } from './access/access-policy';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';
import { ProtocolGatewayConfigModule } from './config/protocol-gateway-config.module';
import { QueryPipeline } from './pipeline/query-pipeline';
import { OpenApiDocuments } from './openapi/openapi-document';
import { appVersion } from './app-version';
import { GatewayController } from './http/gateway.controller';
import { RootController } from './http/root.controller';
import { RouteTable } from './routes/route-table';
import { JsonPrinter } from './transcoding/json-printer';
import { UnknownFieldReport } from './transcoding/unknown-field-report';
import { ReflectionMonitor } from './upstream/reflection-monitor';
import { UpstreamClient } from './upstream/upstream-client';
import { UpstreamMetrics } from './upstream/upstream-metrics';
import { upstreamProbe } from './upstream/upstream-probe';

export const PROTO_DESCRIPTORS = Symbol('PROTO_DESCRIPTORS');

/** The gRPC channel and what the node serves; shared by the query pipeline and the readiness probe. */
@Module({
  providers: [
    {
      provide: UpstreamMetrics,
      inject: [Metrics, Tracing, ProtocolGatewayConfig],
      useFactory: (metrics: Metrics, tracing: Tracing, config: ProtocolGatewayConfig) =>
        new UpstreamMetrics(metrics, config.GRPC_UPSTREAM, tracing.tracer),
    },
    {
      provide: UpstreamClient,
      inject: [ProtocolGatewayConfig, UpstreamMetrics],
      useFactory: (config: ProtocolGatewayConfig, metrics: UpstreamMetrics) =>
        new UpstreamClient(config, metrics),
    },
    {
      provide: ReflectionMonitor,
      inject: [UpstreamClient, UpstreamMetrics, ProtocolGatewayConfig],
      useFactory: (upstream: UpstreamClient, metrics: UpstreamMetrics, config: ProtocolGatewayConfig) => {
        const monitor = new ReflectionMonitor(upstream, Math.min(config.UPSTREAM_DEADLINE_MS, 5_000));
        metrics.watchReflection(() => monitor.current);
        return monitor;
      },
    },
  ],
  exports: [UpstreamClient, ReflectionMonitor],
})
export class UpstreamModule implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
    @Inject(ReflectionMonitor) private readonly reflection: ReflectionMonitor,
    @Inject(ProtocolGatewayConfig) private readonly config: ProtocolGatewayConfig,
  ) {}

  // The first answer is awaited (bounded by the deadline) so that a node without a service gets 501 from the
  // first request on; a node that is down does not stop the gateway from starting (readiness reports it).
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.REFLECTION_ENABLED) return;
    await this.reflection.refresh();
    this.reflection.start(this.config.REFLECTION_REFRESH_MS);
  }

  onModuleDestroy(): void {
    this.reflection.stop();
    this.upstream.close();
  }
}

@Module({})
export class AppModule {
  static forRoot(config: ProtocolGatewayConfig): DynamicModule {
    const redact =
      config.API_KEY_HEADER.toLowerCase() === 'x-api-key'
        ? []
        : [`req.headers["${config.API_KEY_HEADER.toLowerCase()}"]`];
    return {
      module: AppModule,
      imports: [
        ProtocolGatewayConfigModule.forRoot(config),
        LoggingModule.forRoot({
          service: 'protocol-gateway',
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
          redact,
        }),
        MetricsModule.forRoot({ service: 'protocol-gateway', config }),
        TracingModule.forRoot({ service: 'protocol-gateway', config }),
        UpstreamModule,
        HealthModule.forRoot({
          service: 'protocol-gateway',
          imports: [UpstreamModule],
          inject: [UpstreamClient],
          probes: (client: UpstreamClient) => [upstreamProbe(client)],
        }),
      ],
      controllers: [RootController, GatewayController],
      providers: [
        { provide: PROTO_DESCRIPTORS, useFactory: () => loadProtoRoot(QUERY_PROTO_FILES) },
        {
          provide: RouteTable,
          inject: [PROTO_DESCRIPTORS],
          useFactory: (root: Root) => RouteTable.fromRoot(root, QUERY_SERVICES, config.PROTOCOL_PREFIX),
        },
        {
          provide: OpenApiDocuments,
          inject: [RouteTable],
          useFactory: (routes: RouteTable) =>
            new OpenApiDocuments(() => routes, { title: 'Protocol gateway', version: appVersion() }),
        },
        {
          provide: JsonPrinter,
          inject: [PROTO_DESCRIPTORS],
          useFactory: (root: Root) => new JsonPrinter(root),
        },
        {
          provide: AccessPolicy,
          useFactory: () =>
            new AccessPolicy({
              mode: config.ACCESS_MODE,
              header: config.API_KEY_HEADER,
              grants: parseApiKeys(config.API_KEYS),
            }),
        },
        {
          provide: QueryPipeline,
          inject: [RouteTable, JsonPrinter, UpstreamClient, ReflectionMonitor, AccessPolicy, Metrics],
          useFactory: (
            routes: RouteTable,
            printer: JsonPrinter,
            client: UpstreamClient,
            reflection: ReflectionMonitor,
            access: AccessPolicy,
            metrics: Metrics,
          ) =>
            new QueryPipeline(routes, printer, client, reflection, access, new UnknownFieldReport(metrics), {
              prefix: config.PROTOCOL_PREFIX,
              legacyPrefixes: config.LEGACY_PREFIXES,
              disabledMethods: config.DISABLED_METHODS,
              strictQuery: config.QUERY_STRICT,
              legacyRoutes: config.LEGACY_ROUTES,
            }),
        },
      ],
    };
  }
}
