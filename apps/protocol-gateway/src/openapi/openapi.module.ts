import { DynamicModule, Module } from '@nestjs/common';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { RoutesModule } from '../routes/routes.module';
import { ServedRoutes } from '../routes/served-routes';
import { OpenApiDocuments } from './openapi-document';

/** The OpenAPI document of the routes in service. */
@Module({})
export class OpenApiModule {
  /** `version`: the app's own, which only the root knows (its package.json). */
  static forRoot(info: { title: string; version: string }): DynamicModule {
    return {
      module: OpenApiModule,
      imports: [RoutesModule],
      providers: [
        {
          provide: OpenApiDocuments,
          inject: [ServedRoutes, ProtocolGatewayConfig],
          // Built from the table in service now, so a reflection refresh that changes the routes changes the document.
          useFactory: (served: ServedRoutes, config: ProtocolGatewayConfig) =>
            new OpenApiDocuments(() => served.current.table, {
              ...info,
              access: { mode: config.ACCESS_MODE, header: config.API_KEY_HEADER },
            }),
        },
      ],
      exports: [OpenApiDocuments],
    };
  }
}
