import { loadConfig, trustedProxies } from '@dmrv/config';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';
import { renderGrpcStatusBody } from './errors/error-renderer';
import { BLOCK_HEIGHT_HEADER } from './pipeline/query-pipeline';
import { installCors } from './http/cors';

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
  return { app, config };
}
