import type { AddressInfo } from 'node:net';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MetricsModule } from '@dmrv/metrics';
import { Logger } from '@dmrv/logging';
import { BaseServiceConfig, ConfigValidationError } from '@dmrv/config';
import { installGracefulShutdown } from './create-http-app';

/**
 * What a service tells the process that started it, once it listens, when that process opened an IPC channel (the
 * local stack, the bench). The parent can then pass port 0 and learn the bound ports, instead of choosing a port it
 * saw free and racing every other process on the machine for it until the child binds.
 */
export interface ListeningAnnouncement {
  listening: string;
  metricsPort?: number;
}

/** Sends the bound address to the parent process, when it opened an IPC channel; returns what it sent. */
export function announceListening(app: NestFastifyApplication, host: string): ListeningAnnouncement {
  const { port } = app.getHttpServer().address() as AddressInfo;
  const announcement: ListeningAnnouncement = {
    listening: `http://${host}:${port}`,
    metricsPort: app.get(MetricsModule, { strict: false }).listenerPort,
  };
  process.send?.(announcement);
  return announcement;
}

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
      const { listening } = announceListening(app, config.HOST);
      app.get(Logger).log(`${name} listening on ${listening}`, 'Bootstrap');
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
