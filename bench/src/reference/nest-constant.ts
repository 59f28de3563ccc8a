import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { announceListening, createHttpApp, installGracefulShutdown } from '@dmrv/http-kit';
import { LoggingModule } from '@dmrv/logging';
import { MetricsModule } from '@dmrv/metrics';
import { CONSTANT_ANSWER, requireEnv } from '../floors/floor-server';

/**
 * The cheapest answer any of our services can give: the same NestJS + Fastify pipeline (`createHttpApp`: request
 * ids, request logs at info, the HTTP metrics every service records, the error filter), one route, no guard, no
 * validation, no I/O; tracing off, as it is unless an OTLP endpoint is configured. Measured against a bare
 * `node:http` server writing the same bytes, it says how much of a service's gap to its floor is the framework.
 */
@Controller()
class ConstantController {
  @Get('constant')
  constant(): typeof CONSTANT_ANSWER {
    return CONSTANT_ANSWER;
  }

  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

@Module({
  imports: [
    LoggingModule.forRoot({
      service: 'nest-reference',
      level: process.env.LOG_LEVEL ?? 'info',
      pretty: false,
    }),
    MetricsModule.forRoot({ service: 'nest-reference', config: { HOST: '127.0.0.1' } }),
  ],
  controllers: [ConstantController],
})
class ConstantModule {}

async function main(): Promise<void> {
  const app = await createHttpApp(ConstantModule, { trustProxy: false });
  installGracefulShutdown(app, { graceMs: 5_000 });
  await app.listen(Number(requireEnv('PORT')), '127.0.0.1');
  announceListening(app, '127.0.0.1');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
