import { DynamicModule, Module } from '@nestjs/common';
import { ProtocolGatewayConfig } from './protocol-gateway.config';

/** The validated configuration, provided once for every module of the app. */
@Module({})
export class ProtocolGatewayConfigModule {
  static forRoot(config: ProtocolGatewayConfig): DynamicModule {
    return {
      module: ProtocolGatewayConfigModule,
      global: true,
      providers: [{ provide: ProtocolGatewayConfig, useValue: config }],
      exports: [ProtocolGatewayConfig],
    };
  }
}
