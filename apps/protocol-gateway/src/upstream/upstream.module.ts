import { Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { Tracing } from '@dmrv/tracing';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { ReflectionMonitor } from './reflection-monitor';
import { UpstreamClient } from './upstream-client';
import { UpstreamMetrics } from './upstream-metrics';
import { UpstreamPool } from './upstream-pool';
import { upstreamHealthCheck } from './upstream-probe';

/** The chain nodes and what they serve; shared by the query pipeline and the readiness probe. */
@Module({
  providers: [
    {
      provide: UpstreamMetrics,
      inject: [Metrics, Tracing],
      useFactory: (metrics: Metrics, tracing: Tracing) => new UpstreamMetrics(metrics, tracing.tracer),
    },
    {
      provide: UpstreamPool,
      inject: [ProtocolGatewayConfig, UpstreamMetrics],
      useFactory: (config: ProtocolGatewayConfig, metrics: UpstreamMetrics) =>
        new UpstreamPool(config, metrics),
    },
    // The first node's client: what single-node tooling and tests reach for.
    {
      provide: UpstreamClient,
      inject: [UpstreamPool],
      useFactory: (pool: UpstreamPool) => pool.nodes[0]!.client,
    },
    {
      provide: ReflectionMonitor,
      inject: [UpstreamPool, UpstreamMetrics, ProtocolGatewayConfig],
      useFactory: (pool: UpstreamPool, metrics: UpstreamMetrics, config: ProtocolGatewayConfig) => {
        const monitor = new ReflectionMonitor(
          () => pool.primary.client,
          Math.min(config.UPSTREAM_DEADLINE_MS, 5_000),
          config.REFLECTION_MAX_BYTES,
        );
        metrics.watchReflection(
          () => pool.primary.address,
          () => monitor.current,
        );
        return monitor;
      },
    },
  ],
  exports: [UpstreamPool, UpstreamClient, ReflectionMonitor],
})
export class UpstreamModule implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(UpstreamPool) private readonly upstream: UpstreamPool,
    @Inject(ReflectionMonitor) private readonly reflection: ReflectionMonitor,
    @Inject(ProtocolGatewayConfig) private readonly config: ProtocolGatewayConfig,
  ) {}

  // The first answer is awaited (bounded by the deadline) so that a node without a service gets 501 from the
  // first request on; a node that is down does not stop the gateway from starting (readiness reports it).
  async onApplicationBootstrap(): Promise<void> {
    this.upstream.startHealthChecks(upstreamHealthCheck());
    if (!this.config.REFLECTION_ENABLED) return;
    await this.reflection.refresh();
    this.reflection.start(this.config.REFLECTION_REFRESH_MS);
  }

  onModuleDestroy(): void {
    this.reflection.stop();
    this.upstream.close();
  }
}
