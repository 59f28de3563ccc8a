import { RequestMethod } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig, trustedProxies } from '@dmrv/config';
import { createHttpApp, StartedService, strictValidationPipe } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { apiBasePath, RegistryConfig } from './config/registry.config';
import { registerHttpCaching } from './http/http-cache';
import { renderRegistryError } from './http/registry-error-renderer';
import { OPENAPI_DOCUMENT } from './openapi/openapi.controller';

export async function bootstrap(env: NodeJS.ProcessEnv = process.env): Promise<StartedService & { config: RegistryConfig }> {
  const config = loadConfig('registry-api', RegistryConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config), {
    trustProxy: trustedProxies(config),
    errorRenderer: renderRegistryError,
  });
  const basePath = apiBasePath(config);
  // Probes stay at the root: orchestrators should not need to know the public prefix.
  app.setGlobalPrefix(basePath.slice(1), {
    exclude: [
      { path: 'health', method: RequestMethod.GET },
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
    ],
  });
  app.useGlobalPipes(strictValidationPipe());
  registerHttpCaching(app.getHttpAdapter().getInstance(), config.CACHE_MAX_AGE_SECONDS);
  SwaggerModule.setup(`${basePath}/api-docs`, app, app.get<OpenAPIObject>(OPENAPI_DOCUMENT), {
    raw: false,
    ui: true,
    customSiteTitle: 'Registry data API',
  });
  return { app, config };
}
