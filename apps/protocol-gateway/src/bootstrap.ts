import { loadConfig } from '@dmrv/config';
import { GrpcStatusErrorBody } from '@dmrv/contracts';
import { ErrorRenderer } from '@dmrv/errors';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';

// grpc-gateway's error shape; the numeric code is the gRPC status that best matches the HTTP status.
const HTTP_TO_GRPC: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 405: 12, 409: 6, 429: 8, 499: 1, 501: 12, 503: 14, 504: 4 };
const renderGrpcStatusBody: ErrorRenderer = (error) => {
  const body: GrpcStatusErrorBody = { code: HTTP_TO_GRPC[error.status] ?? 2, message: error.message, details: [] };
  return { status: error.status, body };
};

export async function bootstrap(
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartedService & { config: ProtocolGatewayConfig }> {
  const config = loadConfig('protocol-gateway', ProtocolGatewayConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config), {
    trustProxy: config.TRUST_PROXY_ENABLED,
    errorRenderer: renderGrpcStatusBody,
  });
  return { app, config };
}
