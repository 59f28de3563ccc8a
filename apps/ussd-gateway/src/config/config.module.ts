import { DynamicModule, Global, Module } from '@nestjs/common';
import { UssdConfig } from './ussd.config';

/** The validated configuration, provided once for the whole app: feature modules inject `UssdConfig`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: UssdConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: UssdConfig, useValue: config }],
      exports: [UssdConfig],
    };
  }
}
