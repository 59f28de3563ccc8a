import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { createServiceLoggers, ServiceLoggingOptions } from './logger-options';
import { RequestLogging } from './request-logging';

/**
 * Nest's `Logger`/`PinoLogger` (nestjs-pino) on the service's root logger, plus `RequestLogging`, which the HTTP
 * layer (`@dmrv/http-kit`) drives from Fastify hooks. nestjs-pino's own middleware is not used (`useExisting`
 * with no routes): it would run pino-http through Fastify's Express-middleware layer on every request.
 */
@Module({})
export class LoggingModule {
  static forRoot(options: ServiceLoggingOptions): DynamicModule {
    const loggers = createServiceLoggers(options);
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger: loggers.root }, useExisting: true, forRoutes: [] })],
      providers: [{ provide: RequestLogging, useValue: new RequestLogging(loggers) }],
      exports: [RequestLogging],
      global: true,
    };
  }
}
