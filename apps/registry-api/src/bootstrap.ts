import { RequestMethod } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { loadConfig, trustedProxies } from '@dmrv/config';
import { createHttpApp, StartedService, strictValidationPipe } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { apiBasePath, RegistryConfig } from './config/registry.config';
import { registerHttpCaching } from './http/http-cache';
import { registerRenderedJson } from './http/rendered-json';
import { renderRegistryError } from './http/registry-error-renderer';
import { ServedOpenApiDocument } from './openapi/openapi.controller';
import { createRegistryDocument } from './openapi/registry-document';
import { EmptySelections, zeroBodies } from './registry/empty-selections';
import { RegistryModule } from './registry/registry.module';
import { AnswerSigner } from './signing/answer-signer';
import { frameworkAnswerSigner, registerAnswerSigning } from './signing/answer-signing.hook';
import { SigningModule } from './signing/signing.module';
import { signingKeysFrom } from './signing/signing-keys';

// A signature is reused for a minute at most, so `created` is never more than that before the answer was sent.
const SIGNATURE_REUSE_MS = 60_000;
const SIGNATURES_KEPT = 8192;

export async function bootstrap(
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartedService & { config: RegistryConfig }> {
  const config = loadConfig('registry-api', RegistryConfig, env);
  const signingKeys = signingKeysFrom(config);
  const signer =
    signingKeys.current &&
    new AnswerSigner(signingKeys.current, { maxEntries: SIGNATURES_KEPT, reuseMs: SIGNATURE_REUSE_MS });
  const app = await createHttpApp(AppModule.forRoot(config, signingKeys), {
    trustProxy: trustedProxies(config),
    errorRenderer: renderRegistryError,
    frameworkAnswerHeaders: signer && frameworkAnswerSigner(signer, config.SIGNING_ORIGIN),
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
  registerRenderedJson(app.getHttpAdapter().getInstance());
  registerHttpCaching(app.getHttpAdapter().getInstance(), config.CACHE_MAX_AGE_SECONDS);
  // After the caching hook: the signature covers the answer as it leaves, a 304 included.
  if (signer) registerAnswerSigning(app.getHttpAdapter().getInstance(), signer, config.SIGNING_ORIGIN);
  // The routes of these modules are the API; the probes and the metrics are not part of it.
  const document = createRegistryDocument(app, basePath, [AppModule, RegistryModule, SigningModule]);
  app.get(ServedOpenApiDocument).set(document);
  app.get(EmptySelections).useZeros(zeroBodies(document));
  SwaggerModule.setup(`${basePath}/api-docs`, app, document, {
    raw: false,
    ui: true,
    customSiteTitle: 'Registry data API',
  });
  return { app, config };
}
