import { loadConfig, trustedProxies } from '@dmrv/config';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import type { ServiceLoggingOptions } from '@dmrv/logging';
import { AppModule } from './app.module';
import { UssdConfig } from './config/ussd.config';
import { buildUssdOpenApiDocument } from './openapi-document';
import { OpenApiDocumentHolder } from './operators/openapi-document.controller';
import { renderUssdError } from './ussd-error.renderer';
import { installUssdRoute } from './ussd/ussd-route';

export interface BootstrapOptions {
  /** Where log lines go (stdout by default); tests pass a stream to read them. */
  logDestination?: ServiceLoggingOptions['destination'];
}

export async function bootstrap(
  env: NodeJS.ProcessEnv = process.env,
  options: BootstrapOptions = {},
): Promise<StartedService & { config: UssdConfig }> {
  const config = loadConfig('ussd-gateway', UssdConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config, options.logDestination), {
    trustProxy: trustedProxies(config),
    formBodies: true,
    errorRenderer: renderUssdError,
  });
  installUssdRoute(app, renderUssdError);
  app.get(OpenApiDocumentHolder).keep(buildUssdOpenApiDocument(app));
  return { app, config };
}
