import { SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig, trustedProxies } from '@dmrv/config';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';
import { renderGrpcStatusBody } from './errors/error-renderer';
import { BLOCK_HEIGHT_HEADER } from './pipeline/answer-headers';
import { installCors } from './http/cors';
import { OpenApiDocuments } from './openapi/openapi-document';

export async function bootstrap(
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartedService & { config: ProtocolGatewayConfig }> {
  const config = loadConfig('protocol-gateway', ProtocolGatewayConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config), {
    trustProxy: trustedProxies(config),
    errorRenderer: renderGrpcStatusBody,
  });
  installCors(app.getHttpAdapter().getInstance(), {
    origins: config.CORS_ORIGINS,
    allowHeaders: [
      BLOCK_HEIGHT_HEADER,
      'authorization',
      'content-type',
      'x-request-id',
      config.API_KEY_HEADER,
    ],
  });
  serveOpenApi(app, config.PROTOCOL_PREFIX);
  return { app, config };
}

/**
 * `/{prefix}/openapi.json` and Swagger UI at `/{prefix}/api-docs` (its assets from swagger-ui-dist, nothing fetched
 * from elsewhere), both from the route table current when asked, so a new table shows on the next request.
 */
function serveOpenApi(app: StartedService['app'], prefix: string): void {
  const documents = app.get(OpenApiDocuments);
  const current = (): OpenAPIObject => documents.current() as unknown as OpenAPIObject;
  app
    .getHttpAdapter()
    .getInstance()
    .get(`/${prefix}/openapi.json`, (_request, reply) => {
      void reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(current()));
    });
  SwaggerModule.setup(`/${prefix}/api-docs`, app, current, {
    raw: false,
    ui: true,
    customSiteTitle: 'Protocol gateway',
    // Swagger UI embeds the document in its init script: rebuilt from the current table on every request.
    patchDocumentOnRequest: () => current(),
  });
}
