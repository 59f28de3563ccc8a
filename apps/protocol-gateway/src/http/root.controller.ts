import { Controller, Get } from '@nestjs/common';
import type { ProtocolRootBody } from '@dmrv/contracts';
import { selectorMatches } from '../access/access-policy';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { ServedRoutes } from '../routes/served-routes';
import { ReflectionMonitor } from '../upstream/reflection-monitor';

/** `/`: what this gateway is and which routes it serves, so a 404 can point somewhere useful. */
@Controller()
export class RootController {
  constructor(
    private readonly config: ProtocolGatewayConfig,
    private readonly routes: ServedRoutes,
    private readonly reflection: ReflectionMonitor,
  ) {}

  @Get()
  root(): ProtocolRootBody {
    const state = this.reflection.current;
    return {
      service: 'protocol-gateway',
      description: 'REST/JSON gateway to the ixo chain query services (grpc-gateway compatible)',
      prefix: `/${this.config.PROTOCOL_PREFIX}`,
      upstream: {
        reflection: state.kind,
        services: state.kind === 'known' ? [...state.services].sort() : null,
      },
      access: this.config.ACCESS_MODE,
      routesVersion: this.routes.current.version,
      routes: this.routes.current.table.routes.map((route) => ({
        method: route.httpMethod,
        path: route.pattern,
        rpc: route.fullMethod,
        disabled: this.config.DISABLED_METHODS.some((selector) => selectorMatches(selector, route)),
        source: route.source,
      })),
      health: '/health',
    };
  }
}
