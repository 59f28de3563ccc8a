import { join } from 'node:path';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@dmrv/config';
import { HealthModule } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { buildInfo, MetricsModule } from '@dmrv/metrics';
import { TracingModule } from '@dmrv/tracing';
import { appVersion } from './app-version';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';
import { HttpModule } from './http/http.module';
import { OpenApiModule } from './openapi/openapi.module';
import { UpstreamPool } from './upstream/upstream-pool';
import { upstreamProbe } from './upstream/upstream-probe';
import { UpstreamModule } from './upstream/upstream.module';

const SERVICE = 'protocol-gateway';

/** The API key header is redacted from the request logs like the default one (`x-api-key`, redacted by logging). */
function redactedHeaders(config: ProtocolGatewayConfig): string[] {
  const header = config.API_KEY_HEADER.toLowerCase();
  return header === 'x-api-key' ? [] : [`req.headers["${header}"]`];
}

/**
 * The protocol gateway: the service's platform (config, logs, metrics, traces, health) and the feature modules, one
 * per room (upstream, routes, access, caching, transcoding, pipeline, openapi, http), each with the metrics it owns.
 */
@Module({})
export class AppModule {
  static forRoot(config: ProtocolGatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(ProtocolGatewayConfig, config),
        LoggingModule.forRoot({
          service: SERVICE,
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
          redact: redactedHeaders(config),
        }),
        MetricsModule.forRoot({ service: SERVICE, config, build: buildInfo(join(__dirname, '..')) }),
        TracingModule.forRoot({ service: SERVICE, config }),
        UpstreamModule,
        HealthModule.forRoot({
          service: SERVICE,
          imports: [UpstreamModule],
          inject: [UpstreamPool],
          probes: (pool: UpstreamPool) => [upstreamProbe(pool)],
        }),
        OpenApiModule.forRoot({ title: 'Protocol gateway', version: appVersion() }),
        HttpModule,
      ],
    };
  }
}
