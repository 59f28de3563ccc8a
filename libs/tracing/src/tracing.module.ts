import { DynamicModule, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Tracing } from './tracing';
import { TracingEnvironment, tracingSettings } from './tracing-settings';

export interface TracingModuleOptions {
  service: string;
  config: TracingEnvironment;
}

/**
 * The service's `Tracing`, global. With an OTLP endpoint configured it loads the OpenTelemetry SDK (otel-tracer.ts)
 * and exports spans in batches; otherwise `Tracing.tracer` is undefined and nothing of the SDK is ever loaded. Spans
 * still pending are exported when the app closes.
 */
@Module({})
export class TracingModule implements OnApplicationShutdown {
  private readonly logger = new Logger('Tracing');

  constructor(@Inject(Tracing) private readonly tracing: Tracing) {}

  static forRoot(options: TracingModuleOptions): DynamicModule {
    return {
      module: TracingModule,
      global: true,
      providers: [
        {
          provide: Tracing,
          useFactory: (): Tracing => {
            const settings = tracingSettings(options.service, options.config);
            if (settings === undefined) return new Tracing(undefined);
            // Required here, not imported at the top, so that with tracing off no part of the SDK is loaded. require()
            // rather than import(): the services are CommonJS, and jest's module runtime cannot run import().
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            const { OtelTracer } = require('./otel-tracer') as typeof import('./otel-tracer');
            const logger = new Logger('Tracing');
            const target = new URL(settings.url);
            // Origin and path only: a URL may carry credentials.
            const where = `${target.origin}${target.pathname}`;
            logger.log(`exporting spans to ${where}`);
            return new Tracing(
              new OtelTracer(settings, (healthy, reason) => {
                if (healthy) logger.log(`spans reach ${where} again`);
                else
                  logger.warn(
                    `spans cannot be exported to ${where} (${reason ?? 'unknown reason'}): dropping them until it answers`,
                  );
              }),
            );
          },
        },
      ],
      exports: [Tracing],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    // A receiver that is down when the service stops costs the spans still pending, never a failed shutdown.
    await this.tracing.tracer?.shutdown().catch((error: unknown) => {
      this.logger.warn(
        `spans still pending were not exported: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}
