import { Module } from '@nestjs/common';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { AccessPolicy, parseApiKeys } from './access-policy';

/** Who may call which route: open, or the API keys of API_KEYS with their scopes. */
@Module({
  providers: [
    {
      provide: AccessPolicy,
      inject: [ProtocolGatewayConfig],
      useFactory: (config: ProtocolGatewayConfig) =>
        new AccessPolicy({
          mode: config.ACCESS_MODE,
          header: config.API_KEY_HEADER,
          grants: parseApiKeys(config.API_KEYS),
        }),
    },
  ],
  exports: [AccessPolicy],
})
export class AccessModule {}
