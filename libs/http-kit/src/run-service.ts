import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from '@dmrv/logging';
import { BaseServiceConfig, ConfigValidationError } from '@dmrv/config';
import { installGracefulShutdown } from './create-http-app';

export interface StartedService {
  app: NestFastifyApplication;
  config: BaseServiceConfig;
}

/**
 * What every `main.ts` does: bootstrap, listen, drain on SIGTERM. A configuration error is printed as the list of
 * offending variables (no stack trace: it is an operator's mistake, not a bug) and the process exits 1.
 */
export function runService(name: string, bootstrap: () => Promise<StartedService>): void {
  bootstrap()
    .then(async ({ app, config }) => {
      await app.listen(config.PORT, config.HOST);
      installGracefulShutdown(app, { graceMs: config.SHUTDOWN_GRACE_MS });
      app.get(Logger).log(`${name} listening on http://${config.HOST}:${config.PORT}`, 'Bootstrap');
    })
    .catch((error: unknown) => {
      if (error instanceof ConfigValidationError) {
        process.stderr.write(`${error.message}\n`);
      } else {
        process.stderr.write(
          `${name} failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      }
      process.exit(1);
    });
}
