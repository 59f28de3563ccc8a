import {
  DynamicModule,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { BuildInfo, registerBuildInfo } from './build-info';
import { HttpMetrics } from './http-metrics';
import { METRICS_PATH, MetricsServer } from './metrics-endpoint';
import { Metrics } from './metrics';

/** The variables of `BaseServiceConfig` (libs/config) that say where `/metrics` is served. */
export interface MetricsExposure {
  HOST: string;
  /** A separate plain listener on this port (what Kubernetes scrapes). */
  METRICS_PORT?: number;
  /** `/metrics` on the service's own port too, behind `Authorization: Bearer <token>`. */
  METRICS_TOKEN?: string;
}

export interface MetricsModuleOptions {
  service: string;
  config: MetricsExposure;
  /** Exported as `dmrv_build_info{version, commit}` (see `buildInfo`). */
  build?: BuildInfo;
}

export const METRICS_OPTIONS = Symbol('METRICS_OPTIONS');

/**
 * The service's `Metrics` (registry and family factories) and its `HttpMetrics`, global so every feature module can
 * add its own families. The HTTP side (route labels, the token-protected route on the main port) is installed by
 * `createHttpApp` (@dmrv/http-kit), which owns the Fastify instance; this module owns the separate listener, started
 * once the app is initialised and closed last at shutdown, so a drain can still be scraped.
 */
@Module({})
export class MetricsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: MetricsServer | undefined;
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly metrics: Metrics,
    @Inject(METRICS_OPTIONS) private readonly options: MetricsModuleOptions,
  ) {}

  static forRoot(options: MetricsModuleOptions): DynamicModule {
    const metrics = new Metrics(options.service);
    if (options.build) registerBuildInfo(metrics.registry, options.build);
    return {
      module: MetricsModule,
      global: true,
      providers: [
        { provide: Metrics, useValue: metrics },
        { provide: HttpMetrics, useValue: new HttpMetrics(metrics) },
        { provide: METRICS_OPTIONS, useValue: options },
      ],
      exports: [Metrics, HttpMetrics, METRICS_OPTIONS],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    const { HOST, METRICS_PORT } = this.options.config;
    if (METRICS_PORT === undefined) return;
    this.server = await MetricsServer.start(this.metrics, HOST, METRICS_PORT);
    this.logger.log(`metrics on http://${HOST}:${this.server.port}${METRICS_PATH}`);
  }

  /** The separate listener's port once it listens (`METRICS_PORT=0` binds any free one); undefined without one. */
  get listenerPort(): number | undefined {
    return this.server?.port;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}
