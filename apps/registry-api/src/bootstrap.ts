import { loadConfig } from '@dmrv/config';
import { createHttpApp, StartedService } from '@dmrv/http-kit';
import { AppModule } from './app.module';
import { RegistryConfig } from './config/registry.config';

export async function bootstrap(env: NodeJS.ProcessEnv = process.env): Promise<StartedService & { config: RegistryConfig }> {
  const config = loadConfig('registry-api', RegistryConfig, env);
  const app = await createHttpApp(AppModule.forRoot(config), { trustProxy: config.TRUST_PROXY_ENABLED });
  return { app, config };
}
