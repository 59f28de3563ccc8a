import { DynamicModule, Module } from '@nestjs/common';
import { credentials } from '@grpc/grpc-js';
import { Client } from '@grpc/grpc-js';
import { DependencyProbe, HealthModule } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';

function upstreamProbe(target: string): DependencyProbe {
  const client = new Client(target, credentials.createInsecure());
  return {
    name: 'upstream',
    check: () =>
      new Promise<void>((resolve, reject) =>
        client.waitForReady(Date.now() + 1500, (error) => (error ? reject(error) : resolve())),
      ),
  };
}

@Module({})
export class AppModule {
  static forRoot(config: ProtocolGatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ service: 'protocol-gateway', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }),
        HealthModule.forRoot({ service: 'protocol-gateway', probes: () => [upstreamProbe(config.GRPC_UPSTREAM)] }),
      ],
      providers: [{ provide: ProtocolGatewayConfig, useValue: config }],
      exports: [ProtocolGatewayConfig],
    };
  }
}
