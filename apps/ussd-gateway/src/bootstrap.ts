import { loadConfig } from '@dmrv/config';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { UssdConfig } from './config/ussd.config';
import { renderUssdError } from './ussd-error.renderer';

export async function bootstrap(env: NodeJS.ProcessEnv = process.env): Promise<StartedService & { config: UssdConfig }> {
  const config = loadConfig('ussd-gateway', UssdConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config), {
    trustProxy: config.TRUST_PROXY_ENABLED,
    formBodies: true,
    errorRenderer: renderUssdError,
  });
  return { app, config };
}
