import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { buildLoggerParams, ServiceLoggingOptions } from './logger-options';

@Module({})
export class LoggingModule {
  static forRoot(options: ServiceLoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot(buildLoggerParams(options))],
      global: true,
    };
  }
}
