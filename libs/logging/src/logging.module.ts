import { DynamicModule, Module, type ValueProvider } from '@nestjs/common';
import { createServiceLoggers, ServiceLoggingOptions } from './logger-options';
import { RequestLogging } from './request-logging';
import { injectedPinoLoggerContexts, Logger, PinoLogger, pinoLoggerToken } from './service-logger';

/**
 * Nest's `Logger` and the `PinoLogger`s (plain and per `@InjectPinoLogger` context) on the service's root logger,
 * plus `RequestLogging`, which the HTTP layer (`@dmrv/http-kit`) drives from Fastify hooks.
 */
@Module({})
export class LoggingModule {
  static forRoot(options: ServiceLoggingOptions): DynamicModule {
    const loggers = createServiceLoggers(options);
    const contextLoggers: ValueProvider[] = injectedPinoLoggerContexts().map((context) => ({
      provide: pinoLoggerToken(context),
      useValue: new PinoLogger(loggers.root, context),
    }));
    const providers: ValueProvider[] = [
      { provide: RequestLogging, useValue: new RequestLogging(loggers) },
      { provide: Logger, useValue: new Logger(loggers.root) },
      { provide: PinoLogger, useValue: new PinoLogger(loggers.root) },
      ...contextLoggers,
    ];
    return {
      module: LoggingModule,
      providers,
      exports: providers.map((provider) => provider.provide),
      global: true,
    };
  }
}
